package sandbox

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Expand returns paths with ~ (alone or followed by a slash) replaced by
// the home directory, each cleaned, without repeats and without empty
// ones. A trailing slash, which marks a directory in a ReadOnly list, is
// kept. Paths that are neither absolute nor start with ~, and ~ paths when
// no home directory is known, are dropped: a relative path would mean a
// different place for every command.
func Expand(paths []string) []string {
	home, _ := os.UserHomeDir()
	var out []string
	for _, p := range paths {
		dir := len(p) > 1 && strings.HasSuffix(p, "/")
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			if home == "" {
				continue
			}
			p = filepath.Join(home, p[1:])
		case !filepath.IsAbs(p):
			continue
		}
		p = filepath.Clean(p)
		if dir && p != "/" {
			p += "/"
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// tilde writes p with the home directory as ~, the way a configuration
// shows it.
func tilde(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return p
	}
	home = filepath.Clean(home)
	switch {
	case p == home:
		return "~"
	case strings.HasPrefix(p, home+"/"):
		return "~" + p[len(home):]
	}
	return p
}

// DefaultWritable returns the toolchain caches that ordinary commands
// write to, as of the environment now, written with ~ where they lie in
// the home directory: Go's build cache (GOCACHE, or the user cache
// directory's go-build) and module cache (GOMODCACHE, or pkg/mod in the
// first GOPATH entry, or ~/go/pkg/mod), ~/.cache (and XDG_CACHE_HOME),
// npm's ~/.npm, and cargo's ~/.cargo/registry and ~/.cargo/git.
//
// Toolchains themselves (~/.rustup, GOPATH/bin, ~/.local/bin) are not
// writable on purpose: a command could put a program there that the user
// then runs outside the sandbox.
func DefaultWritable() []string {
	var out []string
	add := func(p string) {
		if p = strings.TrimSpace(p); filepath.IsAbs(p) || strings.HasPrefix(p, "~/") {
			if p = tilde(filepath.Clean(p)); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	if c := os.Getenv("GOCACHE"); c != "off" {
		add(c)
	}
	if c, err := os.UserCacheDir(); err == nil && os.Getenv("GOCACHE") == "" {
		add(filepath.Join(c, "go-build"))
	}
	switch gopath := filepath.SplitList(os.Getenv("GOPATH")); {
	case os.Getenv("GOMODCACHE") != "":
		add(os.Getenv("GOMODCACHE"))
	case len(gopath) > 0 && filepath.IsAbs(gopath[0]):
		add(filepath.Join(gopath[0], "pkg", "mod"))
	default:
		add("~/go/pkg/mod")
	}
	add("~/.cache")
	add(os.Getenv("XDG_CACHE_HOME"))
	for _, p := range []string{"~/.npm", "~/.cargo/registry", "~/.cargo/git"} {
		add(p)
	}
	return out
}

// DefaultDenyRead returns the paths a command cannot read by default, as
// of the environment now, written with ~ where they lie in the home
// directory: the well-known credential stores (~/.ssh, ~/.aws,
// ~/.config/gcloud, ~/.azure, ~/.kube, ~/.docker/config.json, ~/.netrc,
// ~/.gnupg, ~/.git-credentials, ~/.config/gh/hosts.yml,
// ~/.config/git/credentials, ~/.npmrc, ~/.cargo/credentials.toml,
// ~/.cargo/credentials, ~/.pypirc, ~/.config/hub,
// ~/.terraform.d/credentials.tfrc.json), rein's configuration directory and its
// state directory (the sessions), and the sockets through which a command
// could have a program run outside the sandbox or read secrets: the
// user's runtime directory (XDG_RUNTIME_DIR: the session bus, systemd's,
// the keyring's and the agents' sockets), the ssh agent's socket
// (SSH_AUTH_SOCK), the system bus, Docker's socket, and the directories
// of the terminal multiplexers' and displays' sockets (tmux's, screen's,
// X11's, ICE's: see terminalSockets).
func DefaultDenyRead() []string {
	out := []string{
		"~/.ssh", "~/.aws", "~/.config/gcloud", "~/.azure", "~/.kube", "~/.docker/config.json",
		"~/.netrc", "~/.gnupg", "~/.git-credentials", "~/.config/gh/hosts.yml", "~/.config/git/credentials",
		"~/.npmrc", "~/.cargo/credentials.toml", "~/.cargo/credentials", "~/.pypirc", "~/.config/hub",
		"~/.terraform.d/credentials.tfrc.json", "~/.password-store", "~/.vault-token", "~/.claude/.credentials.json",
		"~/.config/containers/auth.json", "~/.bash_history", "~/.zsh_history",
	}
	add := func(p string) {
		if filepath.IsAbs(p) {
			if p = tilde(filepath.Clean(p)); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	// The stores under the configuration directory, where XDG_CONFIG_HOME
	// (or GH_CONFIG_DIR) puts it.
	add(xdgDir("XDG_CONFIG_HOME", ".config", filepath.Join("gh", "hosts.yml")))
	add(xdgDir("XDG_CONFIG_HOME", ".config", filepath.Join("git", "credentials")))
	add(xdgDir("XDG_CONFIG_HOME", ".config", filepath.Join("containers", "auth.json")))
	if d := os.Getenv("GH_CONFIG_DIR"); d != "" {
		add(filepath.Join(d, "hosts.yml"))
	}
	add(xdgDir("XDG_CONFIG_HOME", ".config", "rein"))
	add(xdgDir("XDG_STATE_HOME", filepath.Join(".local", "state"), "rein"))
	for _, p := range EscapeSockets() {
		add(p)
	}
	return out
}

// EscapeSockets are the sockets through which a command could have a
// program outside the sandbox run something for it (the session and
// system buses, the ssh agent, Docker, tmux, screen, X11), and the
// directories that hold them: Landlock cannot stop a connection to a
// socket by its path, so they are hidden. A caller that lets the person
// replace the deny-read list hides these whatever the list says. The
// sockets found under /tmp and /var/tmp are not listed here: [Wrap] hides
// them whatever the policy says, found when the first command is
// sandboxed.
func EscapeSockets() []string {
	var out []string
	for _, p := range append([]string{os.Getenv("XDG_RUNTIME_DIR"), os.Getenv("SSH_AUTH_SOCK"),
		"/run/dbus/system_bus_socket", "/var/run/docker.sock", "/run/docker.sock"}, terminalSockets()...) {
		if filepath.IsAbs(p) && !slices.Contains(out, filepath.Clean(p)) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// terminalSockets are the directories of the sockets through which a
// command could have a program run outside the sandbox by the user's
// terminal multiplexer or display (tmux new-window, screen -X, an X
// client), which Landlock before ABI 9 cannot keep it from connecting
// to: tmux's (of this user, and of $TMUX's socket), screen's, X11's and
// ICE's.
func terminalSockets() []string {
	uid := strconv.Itoa(os.Getuid())
	tmuxTmp := os.Getenv("TMUX_TMPDIR")
	if !filepath.IsAbs(tmuxTmp) {
		tmuxTmp = "/tmp"
	}
	out := []string{filepath.Join(tmuxTmp, "tmux-"+uid), "/tmp/tmux-" + uid,
		"/tmp/.X11-unix", "/tmp/.ICE-unix", "/run/screen", "/var/run/screen"}
	if sock, _, _ := strings.Cut(os.Getenv("TMUX"), ","); filepath.IsAbs(sock) {
		out = append(out, filepath.Dir(sock))
	}
	if d := os.Getenv("SCREENDIR"); filepath.IsAbs(d) {
		out = append(out, d)
	}
	return out
}

// tmpSockets are the sockets under /tmp and /var/tmp, found once per
// process, when the first command is sandboxed ([Wrap] and
// [Policy.Record] add them to what is hidden): a session that sandboxes
// nothing never pays for the scan, which costs milliseconds in a crowded
// /tmp.
//
// The kernel's table of bound sockets finds one at any depth, by the
// path it was bound with, and a look at /tmp's top level finds one bound
// there from another network namespace (a container sharing /tmp). When
// the table names a socket rein cannot place (one bound by a relative
// path, or no longer where it was bound: renamed), rein also looks two
// levels down, as it did at every start before, without entering its own
// sessions' temporary directories. It does not always: on a machine that
// runs tests, /tmp's folders number in the hundreds, and opening them
// all was a third of a one-command run's CPU.
var tmpSockets = sync.OnceValue(func() []string {
	dirs := []string{"/tmp", "/var/tmp"}
	bound, unplaced, err := boundSockets("/proc/net/unix", dirs)
	depth := 0
	if err != nil || unplaced {
		depth = 2
	}
	found := socketsUnder(dirs, depth, 4096)
	for _, p := range bound {
		if !slices.Contains(found, p) {
			found = append(found, p)
		}
	}
	return found
})

// boundSockets returns the paths under dirs of the Unix sockets the kernel
// lists as bound in table (/proc/net/unix: "Num RefCount Protocol Flags
// Type St Inode Path", the path last and absent for an unbound or
// abstract socket): a server listens on one, whatever its depth, under
// the path it was bound with. unplaced says the table names a socket
// whose file cannot be found by that path: one bound by a relative path
// (anywhere), or one under dirs no longer there (renamed or removed). An
// error means the table cannot be read.
func boundSockets(table string, dirs []string) (paths []string, unplaced bool, err error) {
	f, err := os.Open(table)
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = f.Close() }() // read only
	data, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return nil, false, err
	}
	for i, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if i == 0 || len(fields) < 8 {
			continue // the header, or a socket without a path
		}
		// The path is what follows the seventh field, spaces and all.
		rest := line
		for range 7 {
			rest = strings.TrimLeft(rest, " ")
			rest = rest[strings.IndexByte(rest, ' ')+1:]
		}
		p := strings.TrimLeft(rest, " ")
		switch {
		case strings.HasPrefix(p, "@"):
			continue // abstract: no file
		case !filepath.IsAbs(p):
			unplaced = true
			continue
		}
		p = filepath.Clean(p)
		if slices.Contains(paths, p) || !slices.ContainsFunc(dirs, func(d string) bool { return within(p, d) && p != d }) {
			continue
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSocket == 0 {
			unplaced = true
			continue
		}
		paths = append(paths, p)
	}
	return paths, unplaced, nil
}

// SessionTempPrefix begins the name of a rein session's private temporary
// directory (rein-tmp-...), which the scan for sockets does not enter.
// Such a directory is the TempDir of one session's policy: the sockets a
// sandboxed command makes there die with its PID namespace when it ends,
// and the directory of a rein that died is removed by the next session's
// start, so it holds no server of its own to reach; reading the
// directories a crowd of sessions left would cost the scan its budget and
// cut the directories where servers do listen.
const SessionTempPrefix = "rein-tmp-"

// socketsUnder returns the Unix sockets found in dirs and up to depth
// levels below them, reading at most limit entries in all: servers that
// would run commands for a client (a tmux started with -S /tmp/x, an
// editor's server) often listen there, under names no list can know.
// Sessions' temporary directories (SessionTempPrefix) are neither
// entered nor counted. Sockets made after the scan are not found.
//
// Each directory's sockets, and the directories the next level enters,
// are in the order of their names; where the limit cuts a directory, the
// entries read before the cut are those the directory keeps first (its
// own order, on Linux). On Linux it allocates only for the paths it
// keeps, and for the name of an entry whose type the directory does not
// say (see dirReader): it runs at a process's first sandboxed command,
// and /tmp can hold thousands of entries.
func socketsUnder(dirs []string, depth, limit int) []string {
	var out []string
	r := newDirReader()
	// Breadth first, so that the limit cuts the deepest levels.
	level := dirs
	for d := 0; d <= depth && len(level) > 0 && limit > 0; d++ {
		var next []string
		for _, dir := range level {
			dir = filepath.Clean(dir)
			found, entered := len(out), len(next)
			// A folder found by the look was one when read: a link put in
			// its place since is not followed (a link put in place of a
			// folder above it, two levels down, would be).
			r.each(dir, d == 0, func(name []byte, typ fs.FileMode) bool {
				if typ == fs.ModeDir && bytes.HasPrefix(name, []byte(SessionTempPrefix)) {
					return true
				}
				if limit--; limit < 0 {
					return false
				}
				switch {
				case typ == fs.ModeSocket:
					out = append(out, entryPath(dir, name))
				case typ == fs.ModeDir && d < depth:
					next = append(next, entryPath(dir, name))
				}
				return true
			})
			slices.Sort(out[found:])
			slices.Sort(next[entered:])
			if limit < 0 {
				return out
			}
		}
		level = next
	}
	return out
}

// entryPath returns the path of the entry name (one element: neither .
// nor .., without a slash) in the clean directory dir, as filepath.Join
// would, with one allocation.
func entryPath(dir string, name []byte) string {
	if strings.HasSuffix(dir, "/") {
		return dir + string(name) // dir is the root
	}
	return dir + "/" + string(name)
}

// xdgDir returns name's directory under the XDG base directory env names
// (when it is absolute), or under fallback in the home directory, as
// internal/config and internal/session find rein's; "" when neither is
// known.
func xdgDir(env, fallback, name string) string {
	if x := os.Getenv(env); filepath.IsAbs(x) {
		return filepath.Join(x, name)
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, fallback, name)
	}
	return ""
}

// Protected returns the paths of the workspace roots that stay read-only
// in the sandbox, because a change there would run code outside it or
// change what rein allows: the root's .git when it is a "gitdir:" file;
// the .git of each submodule .gitmodules lists (its gitfile, or the config
// and hooks of a repository there); in each root's repository the config,
// config.worktree and commondir files, the hooks directory, the config and
// hooks of every submodule under modules/, and the directories of
// [HooksDirs] (the one core.hooksPath names, and Husky's parent of it);
// and each root's .rein directory.
// Directories end with a slash (see [Policy.ReadOnly]). Paths that do not
// exist are listed all the same: the sandbox makes a missing directory
// before it mounts it read-only, and watches a missing file.
//
// Protected reads only those config files. It does not follow
// include.path or includeIf, and a repository nested below a root (not
// at the root itself) is not covered.
func Protected(roots []string) []string {
	var out []string
	add := func(p string, dir bool) {
		p = filepath.Clean(p)
		if dir {
			p += "/"
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, root := range Expand(roots) {
		root = strings.TrimSuffix(root, "/")
		if gitdir, ok := gitDir(root); ok {
			if dotgit := filepath.Join(root, ".git"); gitdir != dotgit {
				add(dotgit, false) // a gitfile: where it points is the repository
			}
			for _, sub := range submodulePaths(root) {
				// A submodule's .git (a gitfile, or its repository) says
				// which repository git outside runs in there.
				dotgit := filepath.Join(root, sub, ".git")
				if fi, err := os.Lstat(dotgit); err == nil && fi.IsDir() {
					add(filepath.Join(dotgit, "config"), false)
					add(filepath.Join(dotgit, "config.worktree"), false)
					add(filepath.Join(dotgit, "commondir"), false)
					add(filepath.Join(dotgit, "hooks"), true)
					continue
				}
				add(dotgit, false)
			}
			common := commonDir(gitdir)
			add(filepath.Join(common, "config"), false)
			add(filepath.Join(gitdir, "config.worktree"), false)
			add(filepath.Join(common, "config.worktree"), false)
			add(filepath.Join(gitdir, "commondir"), false)
			add(filepath.Join(common, "hooks"), true)
			for _, m := range submodules(filepath.Join(common, "modules"), 0) {
				// A submodule's commondir or config.worktree would point git
				// outside at another repository, or set its config.
				add(filepath.Join(m, "config"), false)
				add(filepath.Join(m, "config.worktree"), false)
				add(filepath.Join(m, "commondir"), false)
				add(filepath.Join(m, "hooks"), true)
			}
			for _, hp := range hooksDirs(root, gitdir, common) {
				add(hp, true)
			}
		}
		add(filepath.Join(root, ".rein"), true)
	}
	return out
}

// submodulePaths returns the paths, relative to root, of the submodules
// root's .gitmodules lists (the path keys of its submodule sections), but
// those that would leave root.
func submodulePaths(root string) []string {
	b, err := os.ReadFile(filepath.Join(root, ".gitmodules"))
	if err != nil {
		return nil
	}
	var out []string
	inSubmodule := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "["), "]")
			head, _, _ := strings.Cut(strings.TrimSpace(name), " ")
			inSubmodule = strings.EqualFold(strings.TrimSpace(head), "submodule")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !inSubmodule || !ok || !strings.EqualFold(strings.TrimSpace(k), "path") {
			continue
		}
		p := filepath.Clean(gitUnquote(v))
		if p == "." || filepath.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
			continue
		}
		out = append(out, p)
	}
	return out
}

// gitDir returns the git directory of the repository whose worktree is
// root: root/.git, or where a "gitdir:" file there points.
func gitDir(root string) (string, bool) {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case err != nil:
		return "", false
	case fi.IsDir():
		return dotgit, true
	}
	b, err := os.ReadFile(dotgit)
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if dir = strings.TrimSpace(dir); !ok || dir == "" {
		return "", false
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	return filepath.Clean(dir), true
}

// commonDir returns the directory that holds the repository's shared
// config and hooks: where gitdir's commondir file points, or gitdir.
func commonDir(gitdir string) string {
	b, err := os.ReadFile(filepath.Join(gitdir, "commondir"))
	if err != nil {
		return gitdir
	}
	dir := strings.TrimSpace(string(b))
	if dir == "" {
		return gitdir
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitdir, dir)
	}
	return filepath.Clean(dir)
}

// maxModuleDepth bounds how deep submodules of submodules are looked for.
const maxModuleDepth = 4

// submodules returns the git directories of the submodules under dir (a
// repository's modules directory), nested ones included, to a bounded
// depth. A submodule's name may hold slashes, so a directory without a
// config file is looked into too.
func submodules(dir string, depth int) []string {
	if depth > maxModuleDepth {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(d, "config")); err == nil {
			out = append(out, d)
			out = append(out, submodules(filepath.Join(d, "modules"), depth+1)...)
			continue
		}
		out = append(out, submodules(d, depth+1)...)
	}
	return out
}

// HooksDirs returns the directories git would take hooks from in the
// repository whose worktree is root, beyond its hooks directory: the one
// core.hooksPath names, resolved as git does (~ for the home directory, a
// relative path from the worktree's root; the worktree config wins over
// the repository's, which wins over the user's global one), and, when it
// is Husky's .husky/_ (a directory named _, whose hooks run the scripts
// of its parent), its parent too. The paths are cleaned, not resolved
// through symbolic links. None when root holds no repository or
// core.hooksPath is not set. Both the sandbox (see [Protected]) and the
// permission policy read core.hooksPath through it, so that they agree.
func HooksDirs(root string) []string {
	gitdir, ok := gitDir(root)
	if !ok {
		return nil
	}
	return hooksDirs(root, gitdir, commonDir(gitdir))
}

// hooksDirs is HooksDirs for a repository whose git and common
// directories are known.
func hooksDirs(root, gitdir, common string) []string {
	hp := hooksPath(root, gitdir, common)
	switch {
	case hp == "":
		return nil
	case filepath.Base(hp) == "_":
		return []string{hp, filepath.Dir(hp)}
	}
	return []string{hp}
}

// hooksPath returns the directory core.hooksPath names for the repository
// whose worktree is root, resolved as git does (~ for the home directory,
// a relative path from the worktree's root), or "" when it is not set.
// The worktree config wins over the repository's, which wins over the
// user's.
func hooksPath(root, gitdir, common string) string {
	files := []string{filepath.Join(gitdir, "config.worktree"), filepath.Join(common, "config")}
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		files = append(files, filepath.Join(x, "git", "config"))
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		v, ok := gitConfigValue(b, "core", "hookspath")
		if !ok || v == "" {
			continue
		}
		if v == "~" || strings.HasPrefix(v, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				v = filepath.Join(home, v[1:])
			}
		}
		if !filepath.IsAbs(v) {
			v = filepath.Join(root, v)
		}
		return filepath.Clean(v)
	}
	return ""
}

// gitConfigValue returns the last value of key (lower case) in section
// (lower case, without a subsection) of a git config file's text.
// Quotes, escapes and comments are read as git reads them; a key with no
// "=" (a boolean true) has no value.
func gitConfigValue(text []byte, section, key string) (string, bool) {
	var value string
	found := false
	current := ""
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			name := strings.TrimSpace(line[1:end])
			if strings.ContainsAny(name, " \t\"") {
				name = "" // [section "subsection"]: not the one wanted
			}
			current = strings.ToLower(name)
			// A key may follow the header on the same line.
			line = strings.TrimSpace(line[end+1:])
		}
		if current != section || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.ToLower(strings.TrimSpace(k)) != key {
			continue
		}
		value, found = gitUnquote(v), true
	}
	return value, found
}

// gitUnquote reads a git config value: surrounding blanks trimmed, double
// quotes removed, \" \\ \n \t decoded, and a # or ; outside quotes starts
// a comment.
func gitUnquote(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case !quoted && (c == '#' || c == ';'):
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}
