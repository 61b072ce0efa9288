package permission

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// What git does that the analysis of a command does not see: the
// repository it runs in has configuration that names programs (git status
// runs core.fsmonitor; git log -p and git diff run a textconv driver;
// git status may run a clean filter) or reads elsewhere (core.worktree,
// include.path), and hooks (git status writes the index and runs the
// post-index-change hook). A repository comes with a workspace (a
// tarball with its .git, a directory committed in the shape of a
// repository), so it is not the person's: the policy reads it before
// calling git read-only. The person's own configuration (~/.gitconfig,
// $XDG_CONFIG_HOME/git/config, /etc/gitconfig) is theirs, and trusted.

// gitLimits bound what the policy reads of a repository.
const (
	// gitIndexMax is the size of the largest index read for the
	// submodules it records.
	gitIndexMax = 64 << 20
	// gitSubmodules is how many submodules are looked at, in all.
	gitSubmodules = 256
	// gitDepth is how deep submodules of submodules are followed.
	gitDepth = 3
)

// gitRisk says why git, run in dir, would do more than read: what the
// configuration of the repository it finds from there (or of a
// submodule of it) makes it run or read, a hook it may run, or a file of
// the repository the policy cannot read. It is "" when there is nothing,
// or no repository.
func gitRisk(dir string, cache *indexCache) string {
	r := &repoReader{cache: cache, budget: gitSubmodules}
	for d := dir; ; {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		switch {
		case err == nil && fi.IsDir():
			if risk := r.risk(dotgit, d, 0); risk != "" || isGitDir(dotgit) {
				return risk
			}
			// Not a repository: git looks further up.
		case err == nil:
			gitdir, err := readGitfile(dotgit)
			if err != nil {
				return err.Error()
			}
			return r.risk(gitdir, d, 0)
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Sprintf("%s cannot be looked at (%v)", dotgit, err)
		}
		if isGitDir(d) {
			// A bare repository: git uses the directory itself.
			return r.risk(d, "", 0)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// isGitDir reports whether dir has the shape git takes for a repository:
// a HEAD, and objects and refs, or a commondir that holds them.
func isGitDir(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "commondir")); err == nil {
		return true
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// readGitfile reads a .git file, "gitdir: PATH", and returns the
// repository it names, a relative PATH taken from the file's directory.
func readGitfile(file string) (string, error) {
	b, err := readSmall(file, 4096)
	if err != nil {
		return "", fmt.Errorf("%s cannot be read (%v)", file, err)
	}
	target, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
	if !ok || target == "" || strings.ContainsAny(target, "\n\x00") {
		return "", fmt.Errorf("%s is not a gitfile git reads", file)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(file), target)
	}
	return target, nil
}

// readSmall reads file, refusing one larger than max bytes.
func readSmall(file string, max int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("larger than %d bytes", max)
	}
	return b, nil
}

// repoReader reads the repositories of one decision.
type repoReader struct {
	cache *indexCache
	// budget is how many submodules may still be looked at.
	budget int
}

// risk is gitRisk for the repository gitdir, whose working tree is
// worktree ("" for a bare one), depth submodules down.
func (r *repoReader) risk(gitdir, worktree string, depth int) string {
	dirs := []string{gitdir}
	if b, err := readSmall(filepath.Join(gitdir, "commondir"), 4096); err == nil {
		common := strings.TrimRight(string(b), "\r\n")
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
		dirs = append(dirs, common)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("%s cannot be read (%v)", filepath.Join(gitdir, "commondir"), err)
	}
	var hooks []string
	sha256 := false
	for _, d := range dirs {
		hooks = append(hooks, filepath.Join(d, "hooks"))
		for _, name := range []string{"config", "config.worktree"} {
			file := filepath.Join(d, name)
			b, err := readSmall(file, gitConfigMax)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Sprintf("git's configuration %s cannot be read (%v)", file, err)
			}
			vars, err := parseGitConfig(b)
			if err != nil {
				return fmt.Sprintf("git's configuration %s cannot be read (%v)", file, err)
			}
			for _, v := range vars {
				if why := gitKeyRisk(v); why != "" {
					return fmt.Sprintf("%s sets %s (line %d), which %s", file, v.key, v.line, why)
				}
				switch v.key {
				case "core.hookspath":
					h := v.value
					if !filepath.IsAbs(h) && worktree != "" {
						h = filepath.Join(worktree, h)
					}
					hooks = append(hooks, h)
				case "extensions.objectformat":
					sha256 = strings.EqualFold(v.value, "sha256")
				}
			}
		}
	}
	for _, h := range hooks {
		if !filepath.IsAbs(h) {
			return fmt.Sprintf("git's hooks directory %s cannot be placed", h)
		}
		hook := filepath.Join(h, "post-index-change")
		if _, err := os.Lstat(hook); err == nil {
			return fmt.Sprintf("the hook %s runs when git writes its index, which git status does", hook)
		}
	}
	if worktree == "" {
		return ""
	}
	return r.submoduleRisk(gitdir, worktree, sha256, depth)
}

// submoduleRisk is risk for the submodules checked out in worktree, as
// the index of gitdir names them.
func (r *repoReader) submoduleRisk(gitdir, worktree string, sha256 bool, depth int) string {
	subs, err := r.cache.gitlinks(filepath.Join(gitdir, "index"), sha256)
	if err != nil {
		return fmt.Sprintf("git's index %s cannot be read (%v)", filepath.Join(gitdir, "index"), err)
	}
	for _, sub := range subs {
		// git status looks into a submodule that is checked out, and runs
		// git there, with that repository's configuration.
		dir := filepath.Join(worktree, filepath.FromSlash(sub))
		dotgit := filepath.Join(dir, ".git")
		fi, err := os.Stat(dotgit)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if r.budget--; r.budget < 0 || depth+1 >= gitDepth {
			return fmt.Sprintf("the repository has more submodules than rein looks into (%s)", sub)
		}
		var risk string
		switch {
		case err != nil:
			risk = fmt.Sprintf("%s cannot be looked at (%v)", dotgit, err)
		case fi.IsDir():
			risk = r.risk(dotgit, dir, depth+1)
		default:
			subdir, err := readGitfile(dotgit)
			if err != nil {
				return err.Error()
			}
			risk = r.risk(subdir, dir, depth+1)
		}
		if risk != "" {
			return risk
		}
	}
	return ""
}

// gitKeyRisk says what the variable v of a repository's configuration
// makes git do beyond reading the repository, when it is something a
// read-only command could set off: "" when nothing.
func gitKeyRisk(v gitVar) string {
	parts := strings.Split(v.key, ".")
	section, name := parts[0], parts[len(parts)-1]
	switch section + "." + name {
	case "core.fsmonitor":
		if falseValue(v) {
			return ""
		}
		return "git status runs"
	case "core.pager", "diff.external", "diff.textconv", "diff.command", "filter.clean", "filter.smudge",
		"filter.process", "gpg.program", "core.gitproxy", "core.alternaterefscommand":
		return "names a program git runs"
	case "log.showsignature":
		if falseValue(v) {
			return ""
		}
		return "makes git log run gpg.program"
	case "core.worktree", "core.excludesfile", "core.attributesfile", "diff.orderfile", "blame.ignorerevsfile",
		"mailmap.file":
		return "makes git read a file elsewhere"
	}
	switch section {
	case "pager":
		return "names a program git runs"
	case "include", "includeif":
		return "takes configuration from another file"
	}
	return ""
}

// falseValue reports whether v reads as git's false.
func falseValue(v gitVar) bool {
	if v.bare {
		return false
	}
	switch strings.ToLower(v.value) {
	case "", "false", "no", "off", "0":
		return true
	}
	return false
}

// indexCache keeps the submodules of the index files read, by file, for
// as long as a file stays the same (the same file, size and time of
// change): an index is up to 64 MiB, read again at every decision about
// git otherwise. The zero indexCache, and a nil one, keeps nothing. It is
// safe for concurrent use.
type indexCache struct {
	mu      sync.Mutex
	entries map[string]indexEntry
}

type indexEntry struct {
	fi    fs.FileInfo
	links []string
}

// gitlinks is the package's gitlinks, through the cache.
func (c *indexCache) gitlinks(file string, sha256 bool) ([]string, error) {
	fi, err := os.Stat(file)
	if c == nil || err != nil {
		return gitlinks(file, sha256)
	}
	key := file + "\x00" + strconv.FormatBool(sha256)
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && os.SameFile(e.fi, fi) && e.fi.Size() == fi.Size() && e.fi.ModTime().Equal(fi.ModTime()) {
		return e.links, nil
	}
	links, err := gitlinks(file, sha256)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) > 64 {
		c.entries = map[string]indexEntry{}
	}
	c.entries[key] = indexEntry{fi: fi, links: links}
	return links, nil
}

// gitlinks returns the paths of the submodules the index file records
// (entries of mode 160000), as git status finds them, of versions 2, 3
// and 4 of the index format; none when there is no index. An index that
// splits its entries into a shared one is not read.
func gitlinks(file string, sha256 bool) ([]string, error) {
	b, err := readSmall(file, gitIndexMax)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, errors.New("not an index")
	}
	version := binary.BigEndian.Uint32(b[4:])
	n := binary.BigEndian.Uint32(b[8:])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("index version %d", version)
	}
	hash := 20
	if sha256 {
		hash = 32
	}
	var out []string
	var prev []byte
	i := 12
	for range n {
		start := i
		if i+40+hash+2 > len(b) {
			return nil, errors.New("cut short")
		}
		mode := binary.BigEndian.Uint32(b[i+24:])
		i += 40 + hash
		flags := binary.BigEndian.Uint16(b[i:])
		i += 2
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, errors.New("an extended entry in a version 2 index")
			}
			i += 2
		}
		if i >= len(b) {
			return nil, errors.New("cut short")
		}
		path, next, err := indexPath(b, start, i, version, prev)
		if err != nil {
			return nil, err
		}
		i, prev = next, path
		if mode&0o170000 == 0o160000 {
			out = append(out, string(path))
		}
	}
	// The extensions after the entries: a "link" one means the entries
	// are in a shared index elsewhere.
	for i+8 <= len(b)-hash {
		sig := string(b[i : i+4])
		size := int(binary.BigEndian.Uint32(b[i+4:]))
		if sig == "link" {
			return nil, errors.New("a split index")
		}
		if size < 0 || i+8+size > len(b) {
			break
		}
		i += 8 + size
	}
	return out, nil
}

// indexPath reads the path of the index entry that starts at start, at i
// in b, and says where the next entry starts: version 4 gives it as a cut
// of the previous path (prev) and what follows, the others whole and
// padded with NULs.
func indexPath(b []byte, start, i int, version uint32, prev []byte) (path []byte, next int, err error) {
	if version == 4 {
		strip, used := indexVarint(b[i:])
		if used == 0 || strip > uint64(len(prev)) {
			return nil, 0, errors.New("a bad path")
		}
		i += used
		end := bytes.IndexByte(b[i:], 0)
		if end < 0 {
			return nil, 0, errors.New("cut short")
		}
		return append(append([]byte(nil), prev[:len(prev)-int(strip)]...), b[i:i+end]...), i + end + 1, nil
	}
	end := bytes.IndexByte(b[i:], 0)
	if end < 0 {
		return nil, 0, errors.New("cut short")
	}
	// NULs pad the entry to a multiple of eight bytes, one at least.
	return b[i : i+end], start + (i+end-start+8)&^7, nil
}

// indexVarint decodes the variable-length integer of index version 4, and
// says how many bytes it took (0 for a bad one).
func indexVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || i > 9 {
			return 0, 0
		}
		v++
		c = b[i]
		v = v<<7 + uint64(c&127)
		i++
	}
	return v, i
}
