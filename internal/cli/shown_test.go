package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// writers are the functions and methods through which bytes leave for a
// writer, and the only functions of the package allowed to call them: say
// (shown text), the JSON lines renderer (JSON for programs, as the log
// holds it), rein's stdout wrapper, the writer that indents a child's
// transcript (it is given shown text, and adds its prefix), and Execute,
// which picks the process's stdout and stderr.
var writers = map[string][]string{
	"fmt.Fprint": nil, "fmt.Fprintf": nil, "fmt.Fprintln": nil, "fmt.Print": nil, "fmt.Printf": nil, "fmt.Println": nil,
	"io.WriteString": {"say"}, "io.Copy": nil, ".Write": {"jsonLines.event", "output.Write", "indented.Write"},
	"os.Stdout": {"Execute"}, "os.Stderr": {"Execute"},
}

// Everything the package writes for a person is shown text: its only
// writes to a writer are say's (and printf's, through say), the JSON
// renderer's and the stdout wrapper's. A new fmt.Fprintf(os.Stderr, ...)
// with a model's text in it fails here, so text from outside cannot reach
// a terminal by a path that skips printable.
func TestOnlyShownTextIsWritten(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			where := funcName(fn)
			ast.Inspect(fn, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				what := "." + sel.Sel.Name
				if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "fmt" || x.Name == "io" || x.Name == "os") {
					what = x.Name + what
				}
				allowed, listed := writers[what]
				if !listed {
					return true
				}
				checked++
				for _, a := range allowed {
					if a == where {
						return true
					}
				}
				t.Errorf("%s: %s uses %s: write shown text with say or printf instead", fset.Position(sel.Pos()), where, what)
				return true
			})
		}
	}
	if checked == 0 {
		t.Fatal("found no write at all; is the test reading the package's files?")
	}
}

// funcName is fn's name, with its receiver's type for a method
// (terminal.line).
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

func TestSayf(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  shown
		want shown
	}{
		{"a string is a field", sayf("tool %s ran", "bash\x1b]0;t\x07\n"), `tool bash\x1b]0;t\x07\n ran`},
		{"shown text is kept", sayf("%s|%s", text("a\nb"), field("a\nb")), "a\nb|a\\nb"},
		{"numbers", sayf("%d %.1f %v", 3, 1.25, true), "3 1.2 true"},
		{"an error", sayf("%s", errorString("x\u202ey")), "x<U+202E>y"},
		{"a named string type", sayf("%s", kindOf("rate\x9b")), `rate\x9b`},
		{"padding", sayf("[%-5s]", "ab"), "[ab   ]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

type kindOf string
