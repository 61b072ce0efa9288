package boundary

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/rein-agent/rein"

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// packages lists the module's packages with their direct and transitive
// imports, as `go list -deps` sees them.
func packages(t *testing.T) map[string]pkg {
	t.Helper()
	watchSources(t)
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// watchSources stats every Go file of the module. go test caches a passing
// result by the files the test itself opened or stated; what go list reads
// in its own process it does not see. Stating them here makes a change to
// any import in the module run these tests again instead of reporting a
// cached pass.
func watchSources(t *testing.T) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || d.Name() == "go.mod") {
			_, err = os.Stat(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func under(path, root string) bool { return path == root || strings.HasPrefix(path, root+"/") }

func underAny(path string, roots []string) bool {
	return slices.ContainsFunc(roots, func(root string) bool { return under(path, root) })
}

func TestProvidersOnlyTranslate(t *testing.T) {
	forbidden := []string{module + "/internal/tool", module + "/internal/permission", module + "/internal/kernel", module + "/internal/cli"}
	found := 0
	for path, p := range packages(t) {
		if !under(path, module+"/internal/provider") {
			continue
		}
		found++
		for _, dep := range p.Deps {
			if dep == "os/exec" {
				t.Errorf("%s depends on os/exec: a provider translates, it never executes", path)
			}
			for _, f := range forbidden {
				if under(dep, f) {
					t.Errorf("%s depends on %s: a provider translates, it never executes or decides", path, dep)
				}
			}
		}
	}
	if found < 2 {
		t.Fatalf("found %d provider packages, want the interface and at least one adapter", found)
	}
}

// The CLI may import, of this module, only the contracts, the kernel, the
// state, and the read side of recorded sessions (session: list, read,
// fork; why: a query over read events), excerpt and printable, which
// cut text and make it safe for a terminal and import nothing of rein,
// and the terminal UI's packages, which are held to the same list (the
// line mode names a tool call as the UI's cards do): an
// allowlist, so that no new path
// to a provider, a tool or the log opens up unnoticed. The read side
// itself may reach neither a provider nor the tool runtime, so replay,
// log and why cannot ask a model or run a tool even by mistake.
func TestCLIReachesProvidersOnlyThroughTheKernel(t *testing.T) {
	allowed := []string{module + "/internal/contract", module + "/internal/kernel", module + "/internal/state",
		module + "/internal/session", module + "/internal/why", module + "/internal/excerpt", module + "/internal/printable",
		module + "/internal/atomicfile", module + "/internal/workspace"}
	// The UI's own packages, and its library: rein's copies of bubbletea
	// and the bubbles it uses, which import nothing else of rein.
	allowedUnder := []string{module + "/internal/tui", module + "/internal/thirdparty/bubbletea", module + "/internal/thirdparty/bubbles"}
	pkgs := packages(t)
	for path, p := range pkgs {
		if under(path, module+"/internal/thirdparty") {
			for _, imp := range p.Imports {
				// The one exception: bubbles' clipboard is rein's own
				// (see bubbles' REIN.md).
				if under(imp, module) && !under(imp, module+"/internal/thirdparty") && imp != module+"/internal/clipboard" {
					t.Errorf("%s imports %s: a copy of another project's code imports nothing of rein's", path, imp)
				}
			}
		}
	}
	for _, reader := range []string{module + "/internal/session", module + "/internal/why"} {
		for _, dep := range pkgs[reader].Deps {
			for _, f := range []string{"/internal/provider", "/internal/tool", "/internal/kernel", "/internal/permission"} {
				if under(dep, module+f) {
					t.Errorf("%s depends on %s: reading a session must not reach a model or a tool", reader, dep)
				}
			}
			if dep == "os/exec" {
				t.Errorf("%s depends on os/exec: reading a session starts no process", reader)
			}
		}
	}
	found, ui := 0, 0
	for path, p := range pkgs {
		if under(path, module+"/internal/tui") {
			ui++
			for _, imp := range p.Imports {
				if under(imp, module) && !slices.Contains(allowed, imp) && !underAny(imp, allowedUnder) {
					t.Errorf("%s imports %s: the UI drives the runtime facade only (allowed: %v)", path, imp, allowed)
				}
				if imp == "os/exec" {
					t.Errorf("%s imports os/exec: the UI runs nothing itself (a person's !command goes through the runtime)", path)
				}
			}
		}
		if !under(path, module+"/internal/cli") {
			continue
		}
		found++
		for _, imp := range p.Imports {
			if under(imp, module) && !slices.Contains(allowed, imp) && !underAny(imp, allowedUnder) {
				t.Errorf("%s imports %s: the CLI drives the runtime facade only (allowed: %v)", path, imp, allowed)
			}
		}
		if !slices.Contains(p.Imports, module+"/internal/kernel") && path == module+"/internal/cli" {
			t.Errorf("internal/cli does not import the kernel; how does it reach the model?")
		}
	}
	if found == 0 || ui == 0 {
		t.Fatalf("found %d internal/cli and %d internal/tui packages", found, ui)
	}
}

// The contracts, and the leaf helpers everyone may use (excerpt,
// printable), import only the standard library.
func TestContractIsStandardLibraryOnly(t *testing.T) {
	pkgs := packages(t)
	for _, leaf := range []string{"/internal/contract", "/internal/excerpt", "/internal/printable"} {
		for _, dep := range pkgs[module+leaf].Deps {
			if strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") {
				t.Errorf("%s depends on %s; it imports only the standard library", leaf[1:], dep)
			}
		}
	}
}

// The workspace scope and the durable write are leaves: the file tools,
// the permission policy, the configuration, the session store and the log
// all build on them, so they import only the standard library (and no
// os/exec: resolving a path or writing a file runs nothing).
// The ignore rules and the checkpoint store read and write files and run
// nothing either (no git: a hostile repository's configuration runs
// programs); they may also use doublestar and, the store, these leaves.
func TestLeavesAreStandardLibraryOnly(t *testing.T) {
	pkgs := packages(t)
	for leaf, allowed := range map[string][]string{
		module + "/internal/gitignore":  {"github.com/bmatcuk/doublestar/v4"},
		module + "/internal/checkpoint": {"github.com/bmatcuk/doublestar/v4", module + "/internal/gitignore", module + "/internal/atomicfile", module + "/internal/workspace"},
	} {
		p, ok := pkgs[leaf]
		if !ok {
			t.Errorf("no package %s", leaf)
			continue
		}
		for _, dep := range p.Deps {
			if (strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") && !underAny(dep, allowed)) || dep == "os/exec" {
				t.Errorf("%s depends on %s; it imports only the standard library and %v, and not os/exec", leaf, dep, allowed)
			}
		}
	}
	leavesStandardOnly(t, pkgs)
}

func leavesStandardOnly(t *testing.T, pkgs map[string]pkg) {
	for _, leaf := range []string{module + "/internal/workspace", module + "/internal/atomicfile"} {
		p, ok := pkgs[leaf]
		if !ok {
			t.Errorf("no package %s", leaf)
			continue
		}
		for _, dep := range p.Deps {
			if strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") || dep == "os/exec" {
				t.Errorf("%s depends on %s; it imports only the standard library, and not os/exec", leaf, dep)
			}
		}
	}
}

// internal/shell is the one reader of shell syntax: no other package's
// non-test files import mvdan.cc/sh, and both permission (which rules a
// command needs) and why (which paths it touched) use internal/shell, so
// they cannot disagree about a command. The analyser itself reads text
// only: it imports nothing of this module but excerpt (which cuts text),
// and never os/exec.
func TestOneShellAnalyser(t *testing.T) {
	const analyser = module + "/internal/shell"
	pkgs := packages(t)
	for path, p := range pkgs {
		for _, imp := range p.Imports {
			if under(imp, "mvdan.cc/sh") && path != analyser {
				t.Errorf("%s imports %s: only internal/shell reads shell syntax; use it", path, imp)
			}
		}
	}
	if !slices.ContainsFunc(pkgs[analyser].Imports, func(imp string) bool { return under(imp, "mvdan.cc/sh/v3") }) {
		t.Errorf("internal/shell does not import mvdan.cc/sh/v3; what parses bash?")
	}
	for _, user := range []string{module + "/internal/permission", module + "/internal/why"} {
		if !slices.Contains(pkgs[user].Imports, analyser) {
			t.Errorf("%s does not import internal/shell", user)
		}
	}
	for _, dep := range pkgs[analyser].Deps {
		if under(dep, module) && dep != module+"/internal/excerpt" || dep == "os/exec" {
			t.Errorf("internal/shell depends on %s: it reads text and nothing else", dep)
		}
	}
}
