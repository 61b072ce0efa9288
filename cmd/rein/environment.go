package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/tool/builtin"
)

// maxInstructions bounds the AGENTS.md text put into the system prompt.
const maxInstructions = 32 << 10

// environment gathers what the system prompt says about the workspace:
// the OS, the date, git's view of the repository, and the repository's
// AGENTS.md (the nearest one from the workspace up to the repository's
// root; outside a repository, only the workspace's own). git runs with the
// tools' environment (no credentials) and without the repository's
// fsmonitor hook, which would otherwise run code from an untrusted
// checkout before any permission is asked.
func environment(ctx context.Context, workspace string, now time.Time) kernel.Environment {
	env := kernel.Environment{
		Workspace: workspace,
		OS:        runtime.GOOS + "/" + runtime.GOARCH,
		Date:      now.Format("2006-01-02 (Monday)"),
	}
	top := gitOutput(ctx, workspace, "rev-parse", "--show-toplevel")
	if top != "" {
		env.Git = gitSummary(ctx, workspace)
	}
	for dir := workspace; ; {
		f := filepath.Join(dir, "AGENTS.md")
		if text, err := readBounded(f, maxInstructions); err == nil && strings.TrimSpace(text) != "" {
			env.Instructions, env.InstructionsFile = strings.TrimSpace(text), f
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir || dir == top || top == "" {
			break
		}
		dir = parent
	}
	return env
}

// gitSummary says the branch and the changed files, in a few lines.
func gitSummary(ctx context.Context, dir string) string {
	status := gitOutput(ctx, dir, "status", "--porcelain=v1", "--branch")
	lines := strings.Split(strings.TrimSpace(status), "\n")
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

// gitOutput runs git in dir with a short timeout and returns its output,
// or "" when git is missing, fails or is slow: the prompt can do without.
func gitOutput(ctx context.Context, dir string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	safe := []string{"-C", dir, "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "--no-pager"}
	cmd := exec.CommandContext(ctx, "git", append(safe, args...)...)
	cmd.Env = append(builtin.ToolEnv(os.Environ(), nil, nil), "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func readBounded(path string, n int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, n))
	return string(b), err
}
