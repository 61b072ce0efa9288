package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// mounts is what setupMounts did that the helper relies on or undoes
// later.
type mounts struct {
	// privateShm is set when /dev/shm is a tmpfs of the sandbox's own,
	// which the command may then write to.
	privateShm bool
	// watches are the protected paths that no mount could protect (a
	// missing file, a symbolic link): restore puts them back as they
	// were once the command and everything it started are gone.
	watches []watch
	// pinned are the directories pinned so far (see pinParents).
	pinned map[string]bool
	// deferred are the protected paths that a helper started ahead of
	// its command leaves to the command's start (see awaitCommand): the
	// placeholders' files, which must never sit in .git between
	// commands, where git outside would see them, and the missing
	// directories, which nothing makes while no command runs.
	deferred []string
	// deferPlaceholders is set while setting up ahead of the command: the
	// paths above are deferred rather than protected.
	deferPlaceholders bool
}

// watch is a protected path as it was when the command started.
type watch struct {
	path string
	// link is the target of the symbolic link path was, or "" when
	// path did not exist.
	link string
	// placeholder is set when path was missing (or held only what a
	// sandbox puts there) and the sandbox made it with harmless content
	// (see placeholders) to mount it read-only: restore removes it.
	placeholder bool
}

// placeholders are the protected files that may be missing, and what the
// sandbox writes in their place while a command runs, so that it can
// mount them read-only: git reads them as if they were missing (a
// commondir of "." is the repository's own directory; an empty
// config.worktree sets nothing). A file missing from the protected list
// that is not here (a submodule's gitfile) is only watched.
var placeholders = map[string]string{"commondir": ".\n", "config.worktree": ""}

// placeholderFor says whether path is one of placeholders, missing or
// holding only the placeholder's content (another sandbox's, in the same
// workspace), and makes it so when it is missing.
func placeholderFor(path string, missing bool) (bool, error) {
	text, ok := placeholders[filepath.Base(path)]
	if !ok {
		return false, nil
	}
	if !missing {
		b, err := os.ReadFile(path)
		return err == nil && string(b) == text, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false, fmt.Errorf("make a placeholder for the protected %s: %w", path, err)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return false, fmt.Errorf("make a placeholder for the protected %s: %w", path, err)
	}
	return true, nil
}

// setupMounts makes the mount namespace the command runs in: mounts
// private to it; a /proc of its PID namespace and a /dev/shm of its own
// where they can be had; a /dev/pts of its own (see privatePts); in workspace-write the read-only paths mounted
// read-only over themselves (and their parents up to the writable root
// pinned, so that they cannot be moved away and replaced); the hidden
// paths covered.
func setupMounts(p *Policy, deferPlaceholders bool) (*mounts, error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("make the mounts private: %w", err)
	}
	m := &mounts{pinned: map[string]bool{}, deferPlaceholders: deferPlaceholders}
	// Best effort: where the kernel refuses (a /proc partly covered, as in
	// some containers), the command sees the outer /proc, in which
	// Landlock still keeps it from tracing or reading other processes.
	_ = unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		m.privateShm = unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777") == nil
	}
	if err := privatePts(); err != nil {
		return nil, err
	}
	writable := writablePaths(p)
	if p.Mode == ModeWorkspaceWrite {
		if err := m.protect(p.ReadOnly, writable, p.DenyRead); err != nil {
			return nil, err
		}
	}
	if err := hide(p.DenyRead, writable); err != nil {
		return nil, err
	}
	return m, nil
}

// privatePts puts a devpts of the sandbox's own over /dev/pts, with its
// ptmx over /dev/ptmx, so that the user's terminals (the one rein runs
// in) can be neither written (a title, a clipboard sequence) nor read
// (what the user types), while a command can still open ptys of its own.
// Where the kernel refuses a devpts in a user namespace, an empty tmpfs
// covers /dev/pts: no pty at all.
func privatePts() error {
	if fi, err := os.Stat("/dev/pts"); err != nil || !fi.IsDir() {
		return nil // nothing of the host's to hide
	}
	const flags = unix.MS_NOSUID | unix.MS_NOEXEC
	if err := unix.Mount("devpts", "/dev/pts", "devpts", flags, "newinstance,ptmxmode=0666,mode=0620"); err == nil {
		if fi, err := os.Lstat("/dev/ptmx"); err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			return nil // missing, or a link to pts/ptmx: the new one
		}
		if err := unix.Mount("/dev/pts/ptmx", "/dev/ptmx", "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("put the sandbox's own /dev/ptmx in place: %w", err)
		}
		return nil
	}
	if err := unix.Mount("tmpfs", "/dev/pts", "tmpfs", flags|unix.MS_NODEV|unix.MS_RDONLY, "mode=0755,size=4k"); err != nil {
		return fmt.Errorf("hide the host's terminals in /dev/pts: %w", err)
	}
	return nil
}

// writablePaths are the paths p lets a command write under: the
// temporary directory, and the writable roots in workspace-write.
func writablePaths(p *Policy) []string {
	w := []string{p.TempDir}
	if p.Mode == ModeWorkspaceWrite {
		w = append(w, p.Writable...)
	}
	return w
}

// byLength sorts paths parents first.
func byLength(paths []string) []string {
	s := slices.Clone(paths)
	slices.SortStableFunc(s, func(a, b string) int { return len(a) - len(b) })
	return s
}

// protect makes each of ro read-only (see Policy.ReadOnly): a missing
// directory is made first, a missing file of placeholders is made with
// its harmless content (and removed afterwards), another missing file or
// a symbolic link is watched.
// Paths inside a hidden one are left to hide.
func (m *mounts) protect(ro, writable, hidden []string) error {
	for _, entry := range byLength(ro) {
		if err := m.protectOne(entry, writable, hidden); err != nil {
			return err
		}
	}
	return nil
}

// protectDeferred protects what protect deferred (see mounts.deferred).
func (m *mounts) protectDeferred(writable, hidden []string) error {
	m.deferPlaceholders = false
	for _, entry := range m.deferred {
		if err := m.protectOne(entry, writable, hidden); err != nil {
			return err
		}
	}
	m.deferred = nil
	return nil
}

// protectOne is protect's work for one entry of the read-only list.
func (m *mounts) protectOne(entry string, writable, hidden []string) error {
	dir := strings.HasSuffix(entry, "/")
	path := strings.TrimSuffix(entry, "/")
	if slices.ContainsFunc(hidden, func(h string) bool { return within(path, h) }) {
		return nil
	}
	fi, err := os.Lstat(path)
	if _, ph := placeholders[filepath.Base(path)]; m.deferPlaceholders && (ph && !dir || dir && errors.Is(err, fs.ErrNotExist)) {
		m.deferred = append(m.deferred, entry)
		return nil
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) && dir:
		if err := os.MkdirAll(path, 0o755); err != nil {
			return fmt.Errorf("make the protected directory %s: %w", path, err)
		}
	case errors.Is(err, fs.ErrNotExist) && !dir:
		ph, perr := placeholderFor(path, true)
		if perr != nil || !ph {
			// The directory may be missing too, or read-only: the
			// file is only watched.
			m.watches = append(m.watches, watch{path: path})
			return nil
		}
		m.watches = append(m.watches, watch{path: path, placeholder: true})
	case err != nil:
		return fmt.Errorf("protect %s: %w", path, err)
	case fi.Mode().IsRegular():
		if ph, _ := placeholderFor(path, false); ph {
			m.watches = append(m.watches, watch{path: path, placeholder: true})
		}
	case fi.Mode()&fs.ModeSymlink != 0:
		link, err := os.Readlink(path)
		if err != nil {
			return fmt.Errorf("protect %s: %w", path, err)
		}
		m.watches = append(m.watches, watch{path: path, link: link})
		if _, err := os.Stat(path); err != nil {
			return nil // a dangling link: nothing to mount over
		}
	}
	if err := pinParents(path, writable, m.pinned); err != nil {
		return err
	}
	if err := bindReadOnly(path); err != nil {
		return err
	}
	m.pinned[path] = true
	return nil
}

// pinParents bind-mounts each directory between path and the outermost
// writable root that holds it over itself, once: a mount point cannot be
// renamed or removed, so `mv .git elsewhere && mkdir .git` cannot put a
// new config where git looks.
func pinParents(path string, writable []string, pinned map[string]bool) error {
	root := ""
	for _, w := range writable {
		if within(path, w) && (root == "" || len(w) < len(root)) {
			root = w
		}
	}
	if root == "" {
		return nil
	}
	var parents []string
	for d := filepath.Dir(path); len(d) > len(root) && within(d, root); d = filepath.Dir(d) {
		parents = append(parents, d)
	}
	for _, d := range slices.Backward(parents) {
		if pinned[d] {
			continue
		}
		if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("pin %s: %w", d, err)
		}
		pinned[d] = true
	}
	return nil
}

// bindReadOnly mounts path read-only over itself (through a symbolic
// link, over its target). The remount keeps the flags of the mount path
// lies on, which a user namespace may not clear.
func bindReadOnly(path string) error {
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("make %s read-only: %w", path, err)
	}
	return remount(path, unix.MS_RDONLY)
}

// remount remounts the bind mount at path with flags added to those it
// has.
func remount(path string, flags uintptr) error {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return fmt.Errorf("read the mount flags of %s: %w", path, err)
	}
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_RDONLY, unix.MS_RDONLY}, {unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := unix.Mount("", path, "", unix.MS_BIND|unix.MS_REMOUNT|flags, ""); err != nil {
		return fmt.Errorf("remount %s: %w", path, err)
	}
	return nil
}

// hide covers each of hidden: a directory with an empty read-only tmpfs
// that nobody may list or enter, a file with /dev/null on a mount that
// allows no device, so that opening it fails. A writable path inside a
// hidden directory stays reachable at its place (the tmpfs then lets one
// pass through, not list).
func hide(hidden, writable []string) error {
	var done []string
	for _, h := range byLength(hidden) {
		if slices.ContainsFunc(done, func(d string) bool { return within(h, d) }) {
			continue // hidden already with its parent
		}
		fi, err := os.Stat(h)
		if err != nil {
			continue // gone since the policy was made
		}
		if fi.IsDir() {
			var inside []string
			for _, w := range writable {
				if within(w, h) {
					inside = append(inside, w)
				}
			}
			err = hideDir(h, inside)
		} else {
			err = hideFile(h)
		}
		if err != nil {
			return err
		}
		done = append(done, h)
	}
	return nil
}

// hideFile covers the file f with /dev/null, mounted without devices.
func hideFile(f string) error {
	if err := unix.Mount("/dev/null", f, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("hide %s: %w", f, err)
	}
	return remount(f, unix.MS_RDONLY|unix.MS_NODEV|unix.MS_NOSUID|unix.MS_NOEXEC)
}

// hideDir covers the directory d with an empty tmpfs, read-only, mode
// 000, or 111 when the writable paths inside (which are brought back at
// their places) must be passed through.
func hideDir(d string, inside []string) error {
	// Handles on what is to stay reachable, taken before it is covered.
	fds := make([]int, len(inside))
	for i, w := range inside {
		fd, err := unix.Open(w, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("keep %s reachable inside the hidden %s: %w", w, d, err)
		}
		defer unix.Close(fd)
		fds[i] = fd
	}
	const flags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if err := unix.Mount("tmpfs", d, "tmpfs", flags, "mode=0700,size=64k"); err != nil {
		return fmt.Errorf("hide %s: %w", d, err)
	}
	for i, w := range inside {
		if err := exposeIn(w, fds[i]); err != nil {
			return fmt.Errorf("keep %s reachable inside the hidden %s: %w", w, d, err)
		}
	}
	mode := os.FileMode(0)
	if len(inside) > 0 {
		mode = 0o111
	}
	if err := os.Chmod(d, mode); err != nil {
		return fmt.Errorf("hide %s: %w", d, err)
	}
	if err := unix.Mount("", d, "", unix.MS_REMOUNT|unix.MS_RDONLY|flags, ""); err != nil {
		return fmt.Errorf("hide %s: %w", d, err)
	}
	return nil
}

// exposeIn makes the place of w in the fresh tmpfs over its hidden parent
// and mounts w, held by fd, there.
func exposeIn(w string, fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if err := os.MkdirAll(w, 0o711); err != nil {
			return err
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(w), 0o711); err != nil {
			return err
		}
		f, err := os.OpenFile(w, os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		f.Close()
	}
	return unix.Mount(fmt.Sprintf("/proc/self/fd/%d", fd), w, "", unix.MS_BIND|unix.MS_REC, "")
}

// restore puts the watched paths back as they were: what the command
// made where a protected file was missing is removed, a protected link it
// replaced is made again. Everything the command started is dead by now,
// so nothing races it. It says on stderr (the command's output) what it
// undid.
func (m *mounts) restore() {
	for _, w := range m.watches {
		if w.placeholder {
			removePlaceholder(w.path)
			continue
		}
		fi, err := os.Lstat(w.path)
		switch {
		case w.link == "" && err != nil:
			continue // still missing
		case w.link != "" && err == nil && fi.Mode()&fs.ModeSymlink != 0:
			if l, err := os.Readlink(w.path); err == nil && l == w.link {
				continue // untouched
			}
		}
		if err := os.RemoveAll(w.path); err != nil {
			fmt.Fprintf(os.Stderr, "rein: the sandbox could not remove %s, which the command made in a protected place: %v\n", w.path, err)
			continue
		}
		if w.link == "" {
			fmt.Fprintf(os.Stderr, "rein: the sandbox removed %s, which the command created: the path is protected\n", w.path)
			continue
		}
		if err := os.Symlink(w.link, w.path); err != nil {
			fmt.Fprintf(os.Stderr, "rein: the sandbox could not restore the link %s -> %s: %v\n", w.path, w.link, err)
			continue
		}
		fmt.Fprintf(os.Stderr, "rein: the sandbox restored %s, which the command replaced: the path is protected\n", w.path)
	}
}

// removePlaceholder unmounts and removes the placeholder at path, saying
// so when it no longer holds the placeholder's content (something
// replaced it: a command outside the sandbox, since the mount kept the
// command's own writes out).
func removePlaceholder(path string) {
	_ = unix.Unmount(path, unix.MNT_DETACH)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return // another sandbox removed it first
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "rein: the sandbox could not remove its placeholder %s: %v\n", path, err)
		return
	}
	if string(b) != placeholders[filepath.Base(path)] {
		fmt.Fprintf(os.Stderr, "rein: the sandbox removed %s, which was changed while the command ran: the path is protected\n", path)
	}
}
