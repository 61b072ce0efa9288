package boundary

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is how long a function in non-test code may be before its
// doc comment has to say why it is long.
const maxFuncLines = 80

// longBecause is what a long function's doc comment says: "... is long
// because ...". A reason a reader can check, not a marker.
const longBecause = "long because"

// repoRoot is the module's root, two folders up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// ourGoFiles lists the module's non-test Go files, relative to root: not
// testdata, not hidden folders, and not the copies of other projects'
// code under internal/thirdparty, which keep their authors' shape.
func ourGoFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == filepath.Join("internal", "thirdparty")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found only %d Go files under %s", len(files), root)
	}
	return files
}

// longFunctions reports the functions of one file that run over
// maxFuncLines lines (from func to its closing brace) without a doc
// comment saying why.
func longFunctions(fset *token.FileSet, f *ast.File, name string) []string {
	var found []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		if lines <= maxFuncLines {
			continue
		}
		if fn.Doc != nil && strings.Contains(strings.ToLower(fn.Doc.Text()), longBecause) {
			continue
		}
		found = append(found, name+":"+fset.Position(fn.Pos()).String()[len(fset.File(fn.Pos()).Name())+1:]+
			": "+funcName(fn)+" is "+itoa(lines)+" lines")
	}
	return found
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	var b bytes.Buffer
	recv := fn.Recv.List[0].Type
	if star, ok := recv.(*ast.StarExpr); ok {
		recv = star.X
	}
	if idx, ok := recv.(*ast.IndexExpr); ok {
		recv = idx.X
	}
	if idx, ok := recv.(*ast.IndexListExpr); ok {
		recv = idx.X
	}
	if id, ok := recv.(*ast.Ident); ok {
		b.WriteString(id.Name + ".")
	}
	b.WriteString(fn.Name.Name)
	return b.String()
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// A function in non-test code is at most 80 lines, or its doc comment says
// why it is long ("... is long because ..."): a long function is where a
// second job hides, and a reviewer reads a diff, not the whole function.
func TestNoLongFunctionWithoutAReason(t *testing.T) {
	root := repoRoot(t)
	fset := token.NewFileSet()
	var long []string
	for _, rel := range ourGoFiles(t, root) {
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		long = append(long, longFunctions(fset, f, rel)...)
	}
	for _, l := range long {
		t.Errorf("%s, over %d without a doc comment saying why (%q): split it, or say why it is one piece", l, maxFuncLines, longBecause)
	}
}

// The long-function check finds what it is for, and accepts a reason.
func TestLongFunctionCheckItself(t *testing.T) {
	body := strings.Repeat("\tx++\n", maxFuncLines)
	src := "package p\n\nfunc short() {}\n\n" +
		"func long() {\n\tx := 0\n" + body + "\t_ = x\n}\n\n" +
		"// reasoned is long because it is a table.\nfunc reasoned() {\n\tx := 0\n" + body + "\t_ = x\n}\n\n" +
		"type T struct{}\n\nfunc (t *T) method() {\n\tx := 0\n" + body + "\t_ = x\n}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := longFunctions(fset, f, "p.go")
	if len(got) != 2 || !strings.Contains(got[0], "long is 84 lines") || !strings.Contains(got[1], "T.method is 84 lines") {
		t.Errorf("longFunctions = %q, want long and T.method, 84 lines each", got)
	}
}

// go.mod has no replace directive: the go command refuses `go install
// module/cmd/rein@version` for a module that has one, so a patched
// dependency lives under an import path of ours (internal/thirdparty)
// instead. The go command reads go.mod (go mod edit -json), so every
// form it takes is seen.
func TestGoModHasNoReplace(t *testing.T) {
	cmd := exec.Command("go", "mod", "edit", "-json")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	for _, r := range replaces(t, out) {
		t.Errorf("go.mod: replace %s: `go install` fails for a module with a replace directive; put a patched copy under internal/thirdparty", r)
	}
}

// replaces returns the replace directives of go mod edit -json's output,
// "old => new" each.
func replaces(t *testing.T, modJSON []byte) []string {
	t.Helper()
	type version struct{ Path, Version string }
	var mod struct {
		Module  struct{ Path string }
		Replace []struct{ Old, New version }
	}
	if err := json.Unmarshal(modJSON, &mod); err != nil {
		t.Fatal(err)
	}
	if mod.Module.Path != module {
		t.Fatalf("go.mod names module %q, want %s", mod.Module.Path, module)
	}
	var out []string
	for _, r := range mod.Replace {
		out = append(out, strings.TrimSpace(r.Old.Path+" "+r.Old.Version)+" => "+strings.TrimSpace(r.New.Path+" "+r.New.Version))
	}
	return out
}

// The check sees a replace directive in each of go.mod's forms, the
// block without a space included.
func TestReplacesItself(t *testing.T) {
	dir := t.TempDir()
	mod := "module " + module + "\n\ngo 1.26\n\nreplace a.org/x => ./x\n\nreplace(\n\tb.org/y v1.0.0 => c.org/z v1.1.0\n)\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "mod", "edit", "-json")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	got := replaces(t, out)
	if len(got) != 2 || got[0] != "a.org/x => ./x" || got[1] != "b.org/y v1.0.0 => c.org/z v1.1.0" {
		t.Errorf("replaces = %q", got)
	}
}
