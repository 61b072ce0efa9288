package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/workspace"
)

// searchTree writes files (slash paths to contents) below dir.
func searchTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// searchWorkspace returns a workspace over a new temporary directory
// holding files.
func searchWorkspace(t *testing.T, files map[string]string) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	searchTree(t, dir, files)
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// walkedPaths returns the rel paths walkFiles visits from start.
func walkedPaths(t *testing.T, ws *workspace.Workspace, start string) []string {
	t.Helper()
	var got []string
	err := walkFiles(t.Context(), ws, start, nil, func(f walkedFile) error {
		got = append(got, f.rel)
		return nil
	})
	if err != nil {
		t.Fatalf("walkFiles: %v", err)
	}
	return got
}

// runSearchTool runs tool's Check then Execute on input, as the runtime
// would, and returns the output and the tool's error.
func runSearchTool(t *testing.T, tool registry.Tool, input string) (string, error) {
	t.Helper()
	if err := tool.Check(json.RawMessage(input), state.Ledger{}); err != nil {
		return "", err
	}
	var out bytes.Buffer
	_, err := tool.Execute(t.Context(), &registry.Call{Input: json.RawMessage(input), Output: &out})
	return out.String(), err
}

// searchCase is an input to a search tool and the output it should give,
// or, with wantErr, the strings its error should hold.
type searchCase struct {
	name, input, want string
	wantErr           []string
}

// runSearchCases runs each case through tool, as a subtest.
func runSearchCases(t *testing.T, tool registry.Tool, cases []searchCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runSearchTool(t, tool, tt.input)
			switch {
			case len(tt.wantErr) > 0 && err == nil:
				t.Fatalf("%s %s = %q, want an error", tool.Name, tt.input, got)
			case len(tt.wantErr) > 0:
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s %s error %q should contain %q", tool.Name, tt.input, err, w)
					}
				}
			case err != nil:
				t.Fatalf("%s %s: %v", tool.Name, tt.input, err)
			default:
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("%s %s mismatch (-want +got):\n%s", tool.Name, tt.input, d)
				}
			}
		})
	}
}

func TestIgnoreSemantics(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		exclude string // .git/info/exclude
		want    []string
	}{{
		name:  "a name matches at any depth",
		files: map[string]string{".gitignore": "*.log\n", "a.log": "", "d/e/b.log": "", "keep.txt": ""},
		want:  []string{".gitignore", "keep.txt"},
	}, {
		name:  "nested file applies to its subtree only",
		files: map[string]string{"sub/.gitignore": "*.tmp\n", "sub/x.tmp": "", "sub/deep/y.tmp": "", "top.tmp": ""},
		want:  []string{"sub/.gitignore", "top.tmp"},
	}, {
		name:  "negation re-includes",
		files: map[string]string{".gitignore": "*.log\n!keep.log\n", "a.log": "", "keep.log": "", "d/keep.log": ""},
		want:  []string{".gitignore", "d/keep.log", "keep.log"},
	}, {
		name:  "negation cannot re-include below an ignored directory",
		files: map[string]string{".gitignore": "build/\n!build/keep\n", "build/keep": "", "build/x": ""},
		want:  []string{".gitignore"},
	}, {
		name:  "a deeper file overrides a shallower one",
		files: map[string]string{".gitignore": "*.txt\n", "sub/.gitignore": "!keep.txt\n", "a.txt": "", "sub/keep.txt": "", "sub/b.txt": ""},
		want:  []string{".gitignore", "sub/.gitignore", "sub/keep.txt"},
	}, {
		name:  "a trailing slash matches directories only",
		files: map[string]string{".gitignore": "out/\n", "out/a": "", "sub/out/b": "", "other/out": ""},
		want:  []string{".gitignore", "other/out"},
	}, {
		name:  "a leading slash anchors",
		files: map[string]string{".gitignore": "/root.txt\n", "root.txt": "", "sub/root.txt": ""},
		want:  []string{".gitignore", "sub/root.txt"},
	}, {
		name:  "a middle slash anchors",
		files: map[string]string{".gitignore": "doc/frotz\n", "doc/frotz": "", "a/doc/frotz": "", "doc/other": ""},
		want:  []string{".gitignore", "a/doc/frotz", "doc/other"},
	}, {
		name:  "a nested file anchors to its own directory",
		files: map[string]string{"sub/.gitignore": "/x\n", "sub/x": "", "sub/deep/x": "", "x": ""},
		want:  []string{"sub/.gitignore", "sub/deep/x", "x"},
	}, {
		name:  "leading ** matches in every directory",
		files: map[string]string{".gitignore": "**/gen\n", "gen/a": "", "a/b/gen/c": "", "a/gent": ""},
		want:  []string{".gitignore", "a/gent"},
	}, {
		name:  "middle ** matches zero or more directories",
		files: map[string]string{".gitignore": "a/**/z.txt\n", "a/z.txt": "", "a/b/c/z.txt": "", "b/a/z.txt": "", "a/y.txt": ""},
		want:  []string{".gitignore", "a/y.txt", "b/a/z.txt"},
	}, {
		name:  "trailing ** matches inside, not the directory itself",
		files: map[string]string{".gitignore": "foo/**\n!foo/keep\n", "foo/keep": "", "foo/other": "", "foo/d/x": ""},
		want:  []string{".gitignore", "foo/keep"},
	}, {
		name:  "classes, [! negation and ? wildcard",
		files: map[string]string{".gitignore": "*.[!o]\nf?o\n", "a.c": "", "a.o": "", "fxo": "", "fxxo": ""},
		want:  []string{".gitignore", "a.o", "fxxo"},
	}, {
		name:  "comments, blank lines and escapes",
		files: map[string]string{".gitignore": "# comment\n\n\\#hash\n\\!bang\ntrail\\ \nspace   \r\n", "#hash": "", "!bang": "", "trail ": "", "space": "", "# comment": ""},
		want:  []string{"# comment", ".gitignore"},
	}, {
		name:    "info/exclude applies, below the .gitignore files",
		files:   map[string]string{".gitignore": "!keep.bak\n", "x.bak": "", "keep.bak": "", "y.txt": ""},
		exclude: "*.bak\n",
		want:    []string{".gitignore", "keep.bak", "y.txt"},
	}}
	git, gitErr := exec.LookPath("git")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if gitErr == nil {
				gitRun(t, git, dir, "init", "-q")
			}
			searchTree(t, dir, tt.files)
			searchTree(t, dir, map[string]string{".git/info/exclude": tt.exclude, ".git/HEAD": "ref: refs/heads/main\n"})
			ws, err := workspace.New(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := walkedPaths(t, ws, ws.Root())
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("walk mismatch (-want +got):\n%s", d)
			}
			if gitErr != nil {
				return
			}
			// git itself is the reference: the walk lists what git
			// considers not ignored.
			out := gitRun(t, git, dir, "ls-files", "-z", "--others", "--exclude-standard")
			byGit := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
			slices.Sort(byGit)
			slices.Sort(got)
			if d := cmp.Diff(byGit, got); d != "" {
				t.Errorf("walk disagrees with git ls-files (-git +walk):\n%s", d)
			}
		})
	}
}

// gitRun runs git in dir, isolated from the user's and system's
// configuration, and returns its output.
func gitRun(t *testing.T, git, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), git, args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

func TestWalk(t *testing.T) {
	ws := searchWorkspace(t, map[string]string{
		".gitignore":      "*.log\n",
		".git/config":     "",
		".git/info/x":     "",
		"sub/a.log":       "",
		"sub/a.txt":       "",
		"sub/.gitignore":  "/b.txt\n",
		"sub/b.txt":       "",
		"sub/inner/b.txt": "",
		"nested/.git/x":   "",
		"nested/c.log":    "", // a nested repository: the outer rules stop at its root
	})
	t.Run("skips .git and honours ignores", func(t *testing.T) {
		want := []string{".gitignore", "nested/c.log", "sub/.gitignore", "sub/a.txt", "sub/inner/b.txt"}
		if d := cmp.Diff(want, walkedPaths(t, ws, ws.Root())); d != "" {
			t.Errorf("walk mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("a start below the root keeps the rules above it", func(t *testing.T) {
		want := []string{".gitignore", "a.txt", "inner/b.txt"}
		if d := cmp.Diff(want, walkedPaths(t, ws, filepath.Join(ws.Root(), "sub"))); d != "" {
			t.Errorf("walk mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("stops when the context is done", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		err := walkFiles(ctx, ws, ws.Root(), nil, func(walkedFile) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("walkFiles() = %v, want context.Canceled", err)
		}
	})
}

func TestWalkLinks(t *testing.T) {
	outside := t.TempDir()
	searchTree(t, outside, map[string]string{"secret.txt": "password"})
	ws := searchWorkspace(t, map[string]string{"a/file.txt": "x", "target.txt": "y"})
	root := ws.Root()
	links := map[string]string{
		"a/loop":        "..",                                  // a cycle
		"a/self":        ".",                                   // another
		"a/up":          root,                                  // the root itself
		"a/inside.txt":  filepath.Join(root, "target.txt"),     // a file inside: listed
		"a/outside.txt": filepath.Join(outside, "secret.txt"),  // a file outside: skipped
		"a/outdir":      outside,                               // a directory outside: skipped
		"a/dangling":    filepath.Join(root, "does-not-exist"), // skipped
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	done := make(chan []string, 1)
	go func() {
		var got []string
		// The error is reported by the comparison: a failed walk lists
		// nothing.
		_ = walkFiles(t.Context(), ws, root, nil, func(f walkedFile) error {
			got = append(got, f.rel)
			return nil
		})
		done <- got
	}()
	select {
	case got := <-done:
		want := []string{"a/file.txt", "a/inside.txt", "target.txt"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("walk mismatch (-want +got):\n%s", d)
		}
	case <-time.After(time.Minute):
		// Not a timing assertion: an upper bound on a hang, far beyond
		// the milliseconds the walk takes.
		t.Fatal("walk through a symbolic link cycle did not end")
	}
}

func TestSearchPathOutside(t *testing.T) {
	outside := t.TempDir()
	ws := searchWorkspace(t, map[string]string{"a.txt": "x"})
	if err := os.Symlink(outside, filepath.Join(ws.Root(), "escape")); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
	paths := map[string]string{
		"parent":           "..",
		"parent in middle": "sub/../../x",
		"absolute":         outside,
		"symbolic link":    "escape",
	}
	for _, tool := range SearchTools(ws) {
		for name, p := range paths {
			t.Run(tool.Name+"/"+name, func(t *testing.T) {
				input, _ := json.Marshal(map[string]string{"pattern": "x", "path": p})
				err := tool.Check(input, state.Ledger{})
				var ce *registry.CheckError
				if !errors.As(err, &ce) || ce.Code != "precondition_failed" {
					t.Fatalf("Check(%s) = %v, want a precondition_failed CheckError", input, err)
				}
				if !strings.Contains(ce.Message, p) || !strings.Contains(ce.Message, "outside the workspace") {
					t.Errorf("Check message %q should name %s and say it is outside the workspace", ce.Message, p)
				}
				var out bytes.Buffer
				if _, err := tool.Execute(t.Context(), &registry.Call{Input: input, Output: &out}); err == nil {
					t.Errorf("Execute(%s) succeeded with output %q, want it refused", input, out.String())
				}
			})
		}
	}
}

func TestSearchToolsDeclaration(t *testing.T) {
	tools := SearchTools(searchWorkspace(t, nil))
	if _, err := registry.New(tools...); err != nil {
		t.Fatalf("registry.New: %v", err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		if tool.Risk != registry.RiskRead || !tool.ReadOnly || tool.Concurrency != registry.Safe {
			t.Errorf("%s: risk %s, read-only %v, concurrency %s; want read, true, safe", tool.Name, tool.Risk, tool.ReadOnly, tool.Concurrency)
		}
		if tool.Description == "" || tool.Check == nil || tool.Execute == nil {
			t.Errorf("%s: description, Check and Execute must be set", tool.Name)
		}
		var schema struct {
			AdditionalProperties *bool                      `json:"additionalProperties"`
			Properties           map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
			t.Errorf("%s: schema must be JSON with additionalProperties false (err %v)", tool.Name, err)
		}
		for prop, s := range schema.Properties {
			if !bytes.Contains(s, []byte(`"description"`)) {
				t.Errorf("%s: property %s has no description", tool.Name, prop)
			}
		}
	}
	if d := cmp.Diff([]string{"glob", "grep"}, names); d != "" {
		t.Errorf("SearchTools() names mismatch (-want +got):\n%s", d)
	}
}
