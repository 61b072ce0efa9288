package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace"
)

// maxInstructions bounds the bytes of instructions the system prompt
// holds, all files together, shared in the order they are read (Codex
// reads 32 KiB of AGENTS.md).
const maxInstructions = 32 << 10

// environment gathers what the system prompt says about the workspace:
// the OS, the date, git's view of the repository, and the instructions
// (see instructionFiles). git runs with the tools' environment (no
// credentials) and without the repository's fsmonitor hook, which would
// otherwise run code from an untrusted checkout before any permission is
// asked.
func environment(ctx context.Context, workspace string, now time.Time) kernel.Environment {
	env := kernel.Environment{
		Workspace: workspace,
		OS:        runtime.GOOS + "/" + runtime.GOARCH,
		Date:      now.Format("2006-01-02 (Monday)"),
	}
	// One git process: its status says whether the workspace is in a
	// repository, whose root is then the nearest .git above it (git's
	// own answer only where that finds none, as with GIT_DIR set).
	var top string
	if env.Git = gitSummary(ctx, workspace); env.Git != "" {
		top = repositoryRoot(ctx, workspace)
	}
	own := filepath.Join(filepath.Dir(config.DefaultPaths(workspace).User), "AGENTS.md")
	env.Instructions = instructionFiles(own, top, workspace, maxInstructions)
	return env
}

// instructionFiles reads the instructions for a session in workspace, in
// this order: the person's own file (own, ~/.config/rein/AGENTS.md), then
// each directory's AGENTS.md from the repository's root (top) down to
// the workspace, its CLAUDE.md where it has no AGENTS.md. Outside a
// repository (top empty) only the workspace's own directory counts: a
// file in a parent directory (a shared /tmp, the home) is nobody's
// instructions for it. A directory's file that leads outside the
// repository (a symbolic link to ~/.ssh/id_rsa) is not read: its text
// would go to the model. Empty files are skipped. The files share budget
// bytes in that order: the file that reaches it is cut, and those after it
// are left out, each said by its Cut; Readable says which lie in the
// workspace, where the model may read the rest.
func instructionFiles(own, top, workspace string, budget int) []kernel.InstructionFile {
	type candidate struct {
		paths []string // the first that has text is read
		root  string   // where it must lead; empty means anywhere
		own   bool
	}
	var cands []candidate
	if own != "" {
		cands = append(cands, candidate{paths: []string{own}, own: true})
	}
	root := workspace
	if r, ok := within(top, workspace); ok {
		root = r
	}
	for _, dir := range dirsDown(root, workspace) {
		cands = append(cands, candidate{paths: []string{filepath.Join(dir, "AGENTS.md"), filepath.Join(dir, "CLAUDE.md")}, root: root})
	}
	var files []kernel.InstructionFile
	seen := map[string]bool{}
	for _, c := range cands {
		for _, p := range c.paths {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				continue
			}
			if seen[real] {
				break // a link to a file read already: this directory has its say
			}
			if _, inside := within(c.root, real); c.root != "" && !inside {
				continue
			}
			text, size, err := readInstructions(real, budget)
			if err != nil || size == 0 {
				continue // unreadable or empty: the next name, or the next directory
			}
			seen[real] = true
			budget -= len(text)
			if size > len(text) {
				budget = 0 // the files after a cut one are left out whole
			}
			_, readable := within(workspace, real) // the read tools reach it
			files = append(files, kernel.InstructionFile{Path: p, Text: strings.TrimSpace(text), Cut: size - len(text), Own: c.own,
				Readable: readable})
			break
		}
	}
	return files
}

// within reports whether path is root or under it, both with symbolic
// links resolved, and returns root resolved.
func within(root, path string) (string, bool) {
	if root == "" {
		return "", false
	}
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return r, false
	}
	rel, err := filepath.Rel(r, p)
	return r, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// dirsDown returns root and each directory below it down to dir, in that
// order; dir alone when it is not under root.
func dirsDown(root, dir string) []string {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		d = dir
	}
	rel, err := filepath.Rel(root, d)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{dir}
	}
	out := []string{root}
	if rel == "." {
		return out
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		out = append(out, cur)
	}
	return out
}

// readInstructions reads at most budget bytes of the regular file at
// path, cut where a line ends when one is near, and returns them with the
// file's size; an empty file (or one of only spaces) has size 0. A file
// that is not regular is an error, and so is a symbolic link: path has its
// links resolved already, so a link there was swapped in since, and could
// lead anywhere.
//
// What is checked is the file opened, not the path before it is opened: a
// FIFO swapped in between would hold the start until something wrote to
// it. The file is opened without waiting (O_NONBLOCK, which reads of a
// regular file ignore) and checked once open.
func readInstructions(path string, budget int) (string, int, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", 0, err
	}
	if !fi.Mode().IsRegular() {
		return "", 0, fmt.Errorf("%s is not a regular file", path)
	}
	budget = max(budget, 0)
	b, err := io.ReadAll(io.LimitReader(f, int64(max(budget, 512))+1)) // a short file whole, to tell an empty one
	if err != nil {
		return "", 0, err
	}
	if len(b) <= 512 && len(bytes.TrimSpace(b)) == 0 {
		return "", 0, nil
	}
	if len(b) <= budget {
		return string(b), len(b), nil // the whole file
	}
	size := max(int(fi.Size()), len(b))
	b = b[:budget]
	if i := bytes.LastIndexByte(b, '\n'); i >= len(b)/2 {
		b = b[:i+1] // a whole line rather than half of one
	}
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0; i++ {
		if r, n := utf8.DecodeLastRune(b); r != utf8.RuneError || n > 1 {
			break
		}
		b = b[:len(b)-1] // no character cut in two
	}
	return string(b), size, nil
}

// repositoryRoot is the root of the repository dir is in, which git has
// found: the nearest directory above with a .git, or git's answer where
// there is none (GIT_DIR set).
func repositoryRoot(ctx context.Context, dir string) string {
	if root, ok := workspace.Repository(dir); ok {
		return root
	}
	root, _ := git(ctx, dir, "rev-parse", "--show-toplevel")
	return root
}

// gitSummary says the branch and the changed files, in a few lines; ""
// when dir is not in a repository, or git is missing, fails or is slow.
func gitSummary(ctx context.Context, dir string) string {
	status, ok := git(ctx, dir, "status", "--porcelain=v1", "--branch")
	if !ok {
		return ""
	}
	lines := strings.Split(status, "\n")
	if len(lines) == 0 || lines[0] == "" {
		return "a repository"
	}
	branch := strings.TrimPrefix(lines[0], "## ")
	changed := lines[1:]
	if len(changed) == 0 {
		return "branch " + branch + ", no uncommitted changes"
	}
	shown := changed[:min(len(changed), 20)]
	s := fmt.Sprintf("branch %s, %d changed or untracked files:\n  %s", branch, len(changed), strings.Join(shown, "\n  "))
	if len(changed) > len(shown) {
		s += fmt.Sprintf("\n  ... and %d more", len(changed)-len(shown))
	}
	return s
}

// git runs git in dir with a short timeout and returns its output, and
// false when git is missing, fails or is slow: the prompt can do without.
func git(ctx context.Context, dir string, args ...string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	safe := []string{"-C", dir, "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "--no-pager"}
	cmd := exec.CommandContext(ctx, "git", append(safe, args...)...)
	cmd.Env = append(builtin.ToolEnv(os.Environ(), nil, nil), "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(out)), true
}
