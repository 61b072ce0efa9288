package permission

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rein-agent/rein/internal/sandbox"
	"github.com/rein-agent/rein/internal/workspace"
)

// Containment says what contains the processes a policy's commands start.
// The zero Containment is no sandbox: every command runs with the user's
// own rights.
type Containment struct {
	// Sandboxed reports that every command runs in an OS sandbox that
	// lets it write only inside the workspace roots and Writable (and
	// keeps rein's own files and git's hooks and configuration out of
	// reach).
	Sandboxed bool
	// Network reports that the sandbox lets commands reach the network;
	// false means it keeps them off it. Without a sandbox it means
	// nothing: commands reach the network anyway.
	Network bool
	// Writable are absolute writable roots beyond the workspace's: the
	// session's temporary directory, toolchain caches. A write inside one
	// is not "outside" (so a rule may allow it), though it still asks in
	// default mode, as any write does.
	Writable []string
}

// WithContainment returns a copy of p that knows its commands run in c:
// writes inside c.Writable count as inside the writable roots (each as
// given and where it leads, or would lead were it made: a cache not made
// yet, in a home reached through a link, as the sandbox mounts it), and, in
// accept-edits mode, a command whose every effect the analysis sees and
// judges fine runs without asking when c keeps it in a sandbox without
// network. p itself is unchanged.
func (p *Policy) WithContainment(c Containment) *Policy {
	q := *p
	q.cont = Containment{Sandboxed: c.Sandboxed, Network: c.Network, Writable: append([]string(nil), c.Writable...)}
	q.writable = absPaths(c.Writable)
	return &q
}

// WithOwn returns a copy of p for which a write into one of dirs, rein's
// own directories (the person's configuration, the sessions), always
// asks, as one under a workspace's .rein does: a workspace that holds
// them (the home directory) must not let the agent rewrite its rules or
// its record. dirs come resolved ([workspace.Places]): they are among
// the paths the sandbox hides (see WithHidden), resolved once for both. p
// itself is unchanged.
func (p *Policy) WithOwn(dirs []workspace.Place) *Policy {
	q := *p
	q.own = forms(dirs)
	return &q
}

// WithHidden returns a copy of p for which a file tool's call whose path
// is or lies in one of hidden, and in none of except, is a firm ask in
// every mode (a person may answer it; no rule, mode or hook lifts it).
// hidden are the paths the sandbox hides from commands: the credential
// stores (~/.ssh, ~/.aws, ~/.config/gh/hosts.yml...) and rein's own
// configuration and sessions; except are those the file tools may still
// read there (the session's artifacts, the skills' directories). The file
// tools go only inside the workspace, so this matters where the workspace
// holds them (the home directory, /): a read tool must not be the way
// around the sandbox. It is an ask rather than a denial because the
// person may want the model to read ~/.ssh/config for a task, and may
// attach such a file themselves. hidden come resolved
// ([workspace.Places]), as the caller resolved them once for all who
// need them (the search tools too); a relative one is left out. p itself
// is unchanged.
func (p *Policy) WithHidden(hidden []workspace.Place, except []string) *Policy {
	q := *p
	q.hidden, q.except = forms(hidden), absPaths(except)
	return &q
}

// absPaths returns the forms (see forms) of paths, resolved together.
func absPaths(paths []string) []string {
	return forms(workspace.Places(paths))
}

// forms returns the absolute paths of places, cleaned, each followed by
// where it leads where that differs: the forms a path the policy checks
// (as given, or where it leads) may take below one of them. For a place
// that is missing, it is where it would be ([workspace.Place].Reach): a
// ~/.ssh or ~/.docker/config.json made after the start, in a home
// reached through a link, is hidden by its real path too. A relative one
// names no place and is left out.
func forms(places []workspace.Place) []string {
	var out []string
	for _, pl := range places {
		if !filepath.IsAbs(pl.Path) {
			continue
		}
		out = append(out, pl.Path)
		if pl.Reach != "" && pl.Reach != pl.Path { // Reach is Real where Path resolves
			out = append(out, pl.Reach)
		}
	}
	return out
}

// isHidden reports whether the path is or lies in a hidden path (see
// WithHidden), as given or where it leads, and not in an exception.
func (p *Policy) isHidden(pi *pathInfo) bool {
	if len(p.hidden) == 0 || pi.given == "" {
		return false
	}
	forms := []string{pi.abs, pi.givenAbs}
	if pi.givenRel != "" {
		forms = append(forms, filepath.Join(p.ws.Root(), pi.givenRel))
	}
	for _, f := range forms {
		if f == "" {
			continue
		}
		f = filepath.FromSlash(f)
		excepted := false
		for _, e := range p.except {
			excepted = excepted || within(e, f)
		}
		if excepted {
			continue
		}
		for _, h := range p.hidden {
			if within(h, f) {
				return true
			}
		}
	}
	return false
}

// isOwn reports whether the path lies in one of rein's own directories.
func (p *Policy) isOwn(pi *pathInfo) bool {
	for _, d := range p.own {
		if pi.abs != "" && within(d, pi.abs) {
			return true
		}
	}
	return false
}

// Containment returns what the policy knows contains its commands.
func (p *Policy) Containment() Containment {
	c := p.cont
	c.Writable = append([]string(nil), c.Writable...)
	return c
}

// contained reports whether the sandbox keeps commands off the network
// and writing only inside the writable roots.
func (p *Policy) contained() bool { return p.cont.Sandboxed && !p.cont.Network }

// inWritable reports whether abs lies inside one of the writable roots
// beyond the workspace's.
func (p *Policy) inWritable(abs string) bool {
	for _, w := range p.writable {
		if within(w, abs) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or lies below it; both are clean and
// absolute.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir) && (strings.HasSuffix(dir, string(filepath.Separator)) || p[len(dir)] == filepath.Separator)
}

// protectedNames are the directories that decide how rein and git behave:
// a write below one could raise the agent's own permissions (.rein's
// configuration) or run code later (a hook, git's configuration naming a
// program), or run a trusted project's hooks and servers (.claude holds
// Claude Code's settings and the scripts they name, .mcp.json the servers:
// a server the person trusted, given another env, would be asked about
// again, but with the same command shown). They are protected wherever they are in a workspace root (a
// nested repository's .git too), in any case (a case-insensitive file
// system has one .git for .GIT).
var protectedNames = []string{".git", ".rein", ".claude", ".mcp.json"}

// protected reports whether a write to the path would change how rein or
// git behave: the path is under a .git, .rein or .claude directory (as written, or
// where it leads), or git's hooks directory; with tree, the write reaches
// everything below the path, so one that holds such a directory is
// protected too.
func (p *Policy) protected(pi *pathInfo, tree bool) bool {
	for _, rel := range []string{pi.inRoot, pi.givenRel} {
		for _, part := range strings.Split(rel, "/") {
			for _, name := range protectedNames {
				if strings.EqualFold(part, name) {
					return true
				}
			}
		}
	}
	if pi.abs == "" {
		return false
	}
	for _, h := range append(p.hooks, p.own...) {
		if within(h, pi.abs) || tree && within(pi.abs, h) {
			return true
		}
	}
	if tree {
		for _, name := range protectedNames {
			if _, err := os.Lstat(filepath.Join(pi.abs, name)); err == nil {
				return true
			}
		}
	}
	return false
}

// hooksDirs returns the directories git would take hooks from in the
// repository at root, beyond .git/hooks, as the sandbox protects them
// (sandbox.HooksDirs: core.hooksPath, and for Husky's .husky/_ its
// parent), resolved through symbolic links where they exist.
func hooksDirs(root string) []string {
	dirs := sandbox.HooksDirs(root)
	for i, d := range dirs {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			dirs[i] = real
		}
	}
	return dirs
}
