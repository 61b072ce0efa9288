package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/workspace"
)

// maxExplained bounds the sentences Explain returns: past it, one more
// says how many were left out.
const maxExplained = 5

// Explain returns what the sandbox p refused, as the output of a command
// that failed with exitCode shows it: one sentence a line, in words the
// model and the person understand, such as
//
//	the sandbox refused a write to /etc/hosts: outside the writable roots (add the directory to writable_roots in [sandbox], or pass --add-dir)
//	the sandbox refused a write to .git/hooks/pre-commit: .git/hooks is read-only inside the sandbox
//	the sandbox refused a network connection: the network is off (set network = true in [sandbox] or pass --network)
//	the sandbox refused a read of ~/.ssh/id_ed25519: credential stores and rein's own files are hidden
//
// It returns "" for a command that succeeded, for a nil or off p, and
// when the output shows no denial. It recognises the usual messages
// (Permission denied, Read-only file system, Operation not permitted,
// Network is unreachable, Could not resolve host, a refused connection,
// an error on /dev/tcp) and names the path when the message gives one;
// relative paths are taken from the first writable root, where rein runs
// commands. A permission error on a path that the user could not write
// outside the sandbox either, or inside the writable roots, is the
// file's own and not explained. output may be any part of the output
// (the bash tool hands it the head and the tail).
func Explain(p *Policy, output string, exitCode int) string {
	if exitCode == 0 || p.mode() == ModeOff {
		return ""
	}
	e := newExplainer(p)
	var out []string
	more, network := 0, -1
	for line := range strings.Lines(output) {
		s := e.line(strings.TrimRight(line, "\r\n"))
		switch {
		case s == "" || slices.Contains(out, s):
		case strings.HasPrefix(s, networkSentence) && network >= 0:
			// One sentence about the network is enough: the one that
			// names the loopback, if any line does.
			if s == loopbackSentence {
				out[network] = s
			}
		case len(out) < maxExplained:
			if strings.HasPrefix(s, networkSentence) {
				network = len(out)
			}
			out = append(out, s)
		default:
			more++
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("the sandbox refused %d more like these", more))
	}
	return strings.Join(out, "\n")
}

// explainer holds a policy's paths, expanded and resolved, for Explain.
type explainer struct {
	p        *Policy
	writable []string // the writable roots (workspace-write) and the temporary directory
	readOnly []string // without their trailing slashes
	// readOnlyFiles are the read-only paths that name files.
	readOnlyFiles []string
	hidden        []string
	base          string // where relative paths start: the first writable root
	// res resolves the paths of one explanation, which share their
	// directories.
	res workspace.Resolver
}

func newExplainer(p *Policy) *explainer {
	e := &explainer{p: p}
	both := func(paths []string) []string {
		var out []string
		for _, x := range Expand(paths) {
			x = strings.TrimSuffix(x, "/")
			out = append(out, x)
			if r := e.res.Reach(x); r != x {
				out = append(out, r)
			}
		}
		return out
	}
	if p.mode() == ModeWorkspaceWrite {
		e.writable = both(p.Writable)
		e.readOnly = both(p.ReadOnly)
		e.readOnlyFiles = both(slices.DeleteFunc(slices.Clone(p.ReadOnly), func(ro string) bool { return strings.HasSuffix(ro, "/") }))
	}
	if w := Expand(p.Writable); len(w) > 0 {
		e.base = strings.TrimSuffix(w[0], "/")
	}
	e.writable = append(e.writable, both([]string{p.TempDir})...)
	e.hidden = both(p.DenyRead)
	return e
}

// The messages Explain looks for, in lower case.
var (
	fsDenials  = []string{"read-only file system", "permission denied", "operation not permitted", "device or resource busy", "erofs", "eacces", "eperm", "ebusy"}
	netDenials = []string{
		"network is unreachable", "could not resolve host", "couldn't resolve host", "could not resolve hostname",
		"temporary failure in name resolution", "name or service not known", "no address associated with hostname",
		"no such host", "eai_again", "enetunreach", "getaddrinfo", "failed to resolve",
	}
	refusals = []string{"connection refused", "econnrefused", "couldn't connect to server", "failed to connect to"}
)

// line explains one line of output, or returns "".
func (e *explainer) line(line string) string {
	lower := asciiLower(line)
	if strings.Contains(lower, `"no new privileges" flag is set`) {
		return "the sandbox refused sudo: no program can gain privileges inside the sandbox"
	}
	if !e.p.Network {
		if s := e.networkLine(lower); s != "" {
			return s
		}
	}
	i := indexAny(lower, fsDenials)
	if i < 0 {
		// A hidden directory that passes a writable path through shows
		// its other names as missing.
		if j := strings.Index(lower, "no such file or directory"); j >= 0 {
			if path, ok := e.pathBefore(line, j); ok && e.under(path, e.hidden) != "" && exists(path) {
				return hiddenSentence(path)
			}
		}
		return ""
	}
	path, ok := e.pathBefore(line, i)
	if !ok {
		path, ok = e.quotedPath(line[i:])
	}
	if !ok {
		return ""
	}
	return e.fsSentence(path, strings.Contains(lower, "resource busy") || strings.Contains(lower, "ebusy"))
}

// The sentences about the network.
const (
	networkSentence  = "the sandbox refused a network connection"
	networkHint      = ": the network is off (set network = true in [sandbox] or pass --network)"
	loopbackSentence = networkSentence + " to a server outside it" + networkHint +
		"; the sandbox's loopback (127.0.0.1) is its own"
)

// networkLine explains a failed connection, when the network is off.
func (e *explainer) networkLine(lower string) string {
	refused := indexAny(lower, refusals) >= 0
	loopback := strings.Contains(lower, "127.0.0.1") || strings.Contains(lower, "localhost") || strings.Contains(lower, "[::1]")
	switch {
	case refused && loopback:
		return loopbackSentence
	case refused, indexAny(lower, netDenials) >= 0,
		(strings.Contains(lower, "/dev/tcp/") || strings.Contains(lower, "/dev/udp/")) && indexAny(lower, fsDenials) >= 0:
		return networkSentence + networkHint
	}
	return ""
}

// fsSentence explains a file system error on path; busy says it was
// EBUSY, which a rename onto a mount point gets.
func (e *explainer) fsSentence(path string, busy bool) string {
	show := path
	if !filepath.IsAbs(path) {
		if e.base == "" {
			return ""
		}
		path = filepath.Join(e.base, path)
	}
	path = filepath.Clean(path)
	if strings.HasPrefix(show, "/") || strings.HasPrefix(show, "~") {
		show = tilde(path)
	}
	if e.under(path, e.hidden) != "" {
		return hiddenSentence(path)
	}
	if ro := e.under(path, e.readOnly); ro != "" && e.under(path, e.writable) != "" {
		return fmt.Sprintf("the sandbox refused a write to %s: %s is read-only inside the sandbox", show, e.rel(ro))
	}
	// A file renamed over a protected one (sed -i, an editor's save)
	// fails on its mount point, and the message names the new file.
	if busy {
		if i := slices.IndexFunc(e.readOnlyFiles, func(ro string) bool { return filepath.Dir(ro) == filepath.Dir(path) }); i >= 0 {
			return fmt.Sprintf("the sandbox refused to replace a file in %s: %s is read-only inside the sandbox", e.rel(filepath.Dir(path)), e.rel(e.readOnlyFiles[i]))
		}
	}
	if e.under(path, e.writable) != "" || !canWrite(path) {
		return "" // the file's own permissions, not the sandbox's
	}
	if kernelFile(path) {
		// No writable root can let a command write these: say so,
		// rather than advise a setting that would not work.
		return fmt.Sprintf("the sandbox refused access to %s: inside the sandbox the kernel's files (/proc, /sys, /dev) are not writable, nor other processes' readable", show)
	}
	if e.p.mode() == ModeReadOnly {
		return fmt.Sprintf("the sandbox refused a write to %s: the sandbox is read-only; only the temporary directory ($TMPDIR) is writable (sandbox = %q allows writes in the workspace)", show, ModeWorkspaceWrite)
	}
	return fmt.Sprintf("the sandbox refused a write to %s: outside the writable roots (add the directory to writable_roots in [sandbox], or pass --add-dir)", show)
}

// kernelFile says whether path lies under /proc, /sys or /dev, which the
// sandbox never lets a command write (but for its devices, which do not
// fail), whatever the writable roots.
func kernelFile(path string) bool {
	return slices.ContainsFunc([]string{"/proc", "/sys", "/dev"}, func(k string) bool { return within(path, k) })
}

// hiddenSentence explains that path lies in a hidden place.
func hiddenSentence(path string) string {
	return fmt.Sprintf("the sandbox refused a read of %s: credential stores and rein's own files are hidden (deny_read in [sandbox])", tilde(path))
}

// under returns the first of roots that holds path, or "".
func (e *explainer) under(path string, roots []string) string {
	for _, r := range roots {
		if within(path, r) || within(e.res.Reach(path), r) {
			return r
		}
	}
	return ""
}

// rel writes a protected path relative to the writable root holding it
// (.git/hooks), or with ~.
func (e *explainer) rel(p string) string {
	for _, w := range e.writable {
		if within(p, w) && p != w {
			if r, err := filepath.Rel(w, p); err == nil {
				return r
			}
		}
	}
	return tilde(p)
}

// pathBefore finds the path an error message at i of line is about, in
// the shapes of bash, coreutils, Go and Python: "PATH: Permission
// denied", "cannot touch 'PATH': ...", "open PATH: permission denied".
func (e *explainer) pathBefore(line string, i int) (string, bool) {
	before := strings.TrimRight(line[:i], " :")
	if q, ok := e.quotedPath(lastField(before, ": ")); ok {
		return q, true
	}
	seg := lastField(before, ": ")
	// "bash: line 1: notes.txt: Permission denied": a field of its own,
	// after the program's name, is a file name even without a slash.
	whole := seg != before && seg != "" && !strings.ContainsAny(seg, " \t")
	if f := strings.Fields(seg); len(f) > 0 {
		seg = f[len(f)-1]
	}
	seg = strings.Trim(seg, "'\"`‘’“”()[],")
	return seg, looksLikePath(seg) || whole
}

// quotedPath returns the first quoted path in s.
func (e *explainer) quotedPath(s string) (string, bool) {
	for _, q := range [][2]string{{"'", "'"}, {"‘", "’"}, {"\"", "\""}, {"`", "'"}, {"“", "”"}} {
		rest := s
		for {
			a := strings.Index(rest, q[0])
			if a < 0 {
				break
			}
			rest = rest[a+len(q[0]):]
			b := strings.Index(rest, q[1])
			if b < 0 {
				break
			}
			if cand := rest[:b]; looksLikePath(cand) {
				return cand, true
			}
			rest = rest[b+len(q[1]):]
		}
	}
	return "", false
}

// looksLikePath says whether s could be the path of a message: absolute,
// from the home directory, or relative with a slash or a leading dot.
func looksLikePath(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t") {
		return false
	}
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~/") || strings.HasPrefix(s, ".") || strings.Contains(s, "/")
}

// lastField returns what follows the last sep in s, or s.
func lastField(s, sep string) string {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[i+len(sep):]
	}
	return s
}

// indexAny returns the index in s of the first of subs found, or -1.
func indexAny(s string, subs []string) int {
	for _, sub := range subs {
		if i := strings.Index(s, sub); i >= 0 {
			return i
		}
	}
	return -1
}

// asciiLower lowers the ASCII letters of s only, so that an index in
// the result is one in s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// exists says whether path exists, outside the sandbox.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
