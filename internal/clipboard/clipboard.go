// Package clipboard reads the system clipboard for bubbles' textarea and
// textinput (their Paste key), in place of github.com/atotto/clipboard,
// whose init searches PATH for its programs in every process that links
// it, rein's sandbox and tether helpers included, paste or not. This one
// looks for them on the first paste, and in the same order: wl-paste
// under Wayland, then xclip, xsel, Termux's termux-clipboard-get and WSL's
// powershell.exe; pbpaste on macOS.
package clipboard

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// errMissing says that no program to read the clipboard was found.
var errMissing = errors.New("clipboard: no program reads it here; install xclip, xsel or wl-clipboard (Termux: the Termux:API add-on)")

// paste is the command that prints the clipboard, and whether its output
// ends in a CRLF to drop (powershell's); nil when there is none. Found
// once, on the first call.
var paste = sync.OnceValues(func() ([]string, bool) {
	found := func(names ...string) bool {
		for _, n := range names {
			if _, err := exec.LookPath(n); err != nil {
				return false
			}
		}
		return true
	}
	switch {
	case runtime.GOOS == "darwin":
		return []string{"pbpaste"}, false
	case os.Getenv("WAYLAND_DISPLAY") != "" && found("wl-copy", "wl-paste"):
		return []string{"wl-paste", "--no-newline"}, false
	case found("xclip"):
		return []string{"xclip", "-out", "-selection", "clipboard"}, false
	case found("xsel"):
		return []string{"xsel", "--output", "--clipboard"}, false
	case found("termux-clipboard-set", "termux-clipboard-get"):
		return []string{"termux-clipboard-get"}, false
	case found("clip.exe", "powershell.exe"):
		return []string{"powershell.exe", "Get-Clipboard"}, true
	}
	return nil, false
})

// ReadAll returns the text on the system clipboard.
func ReadAll() (string, error) {
	args, crlf := paste()
	if args == nil {
		return "", errMissing
	}
	out, err := exec.Command(args[0], args[1:]...).Output()
	if err != nil {
		return "", err
	}
	s := string(out)
	if crlf {
		s = strings.TrimSuffix(s, "\r\n")
	}
	return s, nil
}
