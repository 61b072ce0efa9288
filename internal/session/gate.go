package session

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Gate checks that session x can go on: this rein knows every event in its
// log, its workspace is still a directory, and every artifact the log
// refers to is still there. It returns what each check found, by name, for
// session.resumed, or an error (wrapping ErrNewer or ErrGate) saying what
// is wrong and what to do. Gate writes nothing.
//
// Permissions are not a check of the log: the caller builds them afresh
// from today's configuration and flags, and records that beside these.
func (x *Session) Gate(version string) (map[string]string, error) {
	if err := x.Facts.Newer(x.ID, version); err != nil {
		return nil, err
	}
	switch {
	case x.State.LastSeq == 0:
		return nil, fmt.Errorf("%w: the log of session %s holds no event: rein stopped before it recorded anything, so there is nothing to resume",
			ErrGate, x.ID)
	case x.State.Session == "":
		return nil, fmt.Errorf("%w: the log of session %s does not start with session.started; it is not a session rein can go on with",
			ErrGate, x.ID)
	}
	gates := map[string]string{"events": fmt.Sprintf("all %d events known to rein %s", x.State.LastSeq, version)}
	cwd := x.State.Cwd
	if fi, err := os.Stat(cwd); cwd == "" || err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: the workspace of session %s, %q, is not a directory any more; restore it, or start a new session",
			ErrGate, x.ID, cwd)
	}
	gates["workspace"] = cwd + " exists"
	var missing []string
	seen := map[string]bool{}
	for _, ref := range x.Facts.Artifacts {
		if seen[ref] {
			continue
		}
		seen[ref] = true
		clean := path.Clean(ref)
		if clean != ref || !strings.HasPrefix(clean, "artifacts/") {
			missing = append(missing, ref+" (not a file under artifacts/)")
			continue
		}
		if _, err := os.Stat(filepath.Join(x.Dir, filepath.FromSlash(clean))); err != nil {
			missing = append(missing, ref)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: session %s refers to %d artifact(s) that are gone from %s: %s; the model was told about them, so the session cannot go on without them (`rein replay %s` still shows it)",
			ErrGate, x.ID, len(missing), x.Dir, strings.Join(missing, ", "), x.ID)
	}
	gates["artifacts"] = fmt.Sprintf("%d of %d present", len(seen), len(seen))
	return gates, nil
}
