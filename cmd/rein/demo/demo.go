// Package demo holds rein's offline demo: a small Go project whose test
// fails, and the script the scripted model follows on it. The project is
// copied to a fresh temporary directory for every run, so the demo never
// touches the person's own files.
package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Prompt is the demo's first message: the running example of the design
// documents.
const Prompt = "look at why this project's tests fail and fix them"

// Script is the scripted model's script (the scripted provider's format).
//
//go:embed script.json
var Script []byte

// project is the bundled Go project. Its go.mod is stored as go.mod.demo so
// that it does not split it off as a module of its own inside rein's tree.
//
//go:embed testdata/project
var project embed.FS

const projectRoot = "testdata/project"

// Workspace copies the bundled project into a new temporary directory and
// returns that directory.
func Workspace() (string, error) {
	dir, err := os.MkdirTemp("", "rein-demo-")
	if err != nil {
		return "", fmt.Errorf("demo: make workspace: %w", err)
	}
	err = fs.WalkDir(project, projectRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, projectRoot), "/")
		if rel == "" {
			return nil
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(rel, ".demo")))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := project.ReadFile(path.Clean(p))
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("demo: copy project to %s: %w", dir, err)
	}
	return dir, nil
}
