package sandbox

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// helperArg is the first argument that makes rein the sandbox helper.
const helperArg = "sandbox-exec"

// init runs the sandbox helper, and exits, when the process was started
// as one: by a command [Wrap] rewrote ("sandbox-exec POLICY -- PROGRAM
// ARGS..."), which re-runs this very executable. It is an init function,
// not a call at the top of main, for two reasons. The helper's start is
// part of every sandboxed command's cost, and an init runs before most of
// the program's other package initialisation (cobra's, the providers',
// net/http's...), which the helper never needs: that saves about half a
// millisecond a command. And any program that can call Wrap links this
// package, so it can be the helper too: a test binary needs no TestMain
// for its sandboxed commands to run. For any other first argument it
// returns at once, so it costs rein's own start nothing.
func init() {
	if len(os.Args) > 1 && os.Args[1] == helperArg {
		os.Exit(platform.helper(os.Args[2:]))
	}
}

// helperFailed is the helper's exit code when it could not set the
// sandbox up, as env and chroot use 125.
const helperFailed = 125

// Policy keys of the encoding. Paths cannot hold a NUL, so records are
// NUL-separated; base64 keeps the argument free of any byte a command
// line might mangle.
const (
	keyMode     = "m"
	keyWritable = "w"
	keyReadOnly = "r"
	keyDenyRead = "h"
	keyTempDir  = "t"
	keyNetwork  = "n"
)

// encodePolicy writes p (normalized) as one command-line argument.
func encodePolicy(p *Policy) string {
	var recs []string
	add := func(k string, vs ...string) {
		for _, v := range vs {
			recs = append(recs, k+"="+v)
		}
	}
	add(keyMode, string(p.Mode))
	add(keyWritable, p.Writable...)
	add(keyReadOnly, p.ReadOnly...)
	add(keyDenyRead, p.DenyRead...)
	add(keyTempDir, p.TempDir)
	if p.Network {
		add(keyNetwork, "1")
	}
	return base64.RawURLEncoding.EncodeToString([]byte(strings.Join(recs, "\x00")))
}

// decodePolicy reads what encodePolicy wrote.
func decodePolicy(s string) (*Policy, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("decode the policy: %w", err)
	}
	p := &Policy{}
	for rec := range strings.SplitSeq(string(b), "\x00") {
		k, v, ok := strings.Cut(rec, "=")
		if !ok {
			return nil, fmt.Errorf("decode the policy: a record %q without a key", rec)
		}
		switch k {
		case keyMode:
			p.Mode = Mode(v)
		case keyWritable:
			p.Writable = append(p.Writable, v)
		case keyReadOnly:
			p.ReadOnly = append(p.ReadOnly, v)
		case keyDenyRead:
			p.DenyRead = append(p.DenyRead, v)
		case keyTempDir:
			p.TempDir = v
		case keyNetwork:
			p.Network = v == "1"
		default:
			return nil, fmt.Errorf("decode the policy: unknown key %q", k)
		}
	}
	if p.Mode != ModeWorkspaceWrite && p.Mode != ModeReadOnly {
		return nil, fmt.Errorf("decode the policy: mode %q", p.Mode)
	}
	return p, nil
}

// helperArgs is what the helper is given: the policy, the descriptor of
// rein's lifeline (package tether; -1 for none), and the program
// to run, which may be empty (a probe: set up, run nothing, exit 0).
type helperArgs struct {
	policy   *Policy
	lifeline int
	argv     []string
	// await is the descriptor of the socket a helper started ahead of
	// its command reads the command from (see prestart); -1 for none.
	await int
}

// awaitArg introduces the descriptor a helper started ahead of its
// command reads the command from.
const awaitArg = "--await"

// helperUsage is what the helper says of arguments it cannot read.
const helperUsage = "usage: rein sandbox-exec POLICY [LIFELINE [--await FD]] [-- PROGRAM [ARGS...]] (rein runs this itself)"

// parseHelperArgs reads the arguments after "sandbox-exec": POLICY, then
// optionally the lifeline's descriptor and "--await" with the descriptor
// the command comes from, or "--" and the program with its arguments.
func parseHelperArgs(args []string) (*helperArgs, error) {
	if len(args) == 0 {
		return nil, errors.New(helperUsage)
	}
	p, err := decodePolicy(args[0])
	if err != nil {
		return nil, err
	}
	h := &helperArgs{policy: p, lifeline: -1, await: -1}
	rest := args[1:]
	if len(rest) > 0 && rest[0] != "--" {
		if h.lifeline, err = strconv.Atoi(rest[0]); err != nil || h.lifeline < 3 {
			return nil, errors.New(helperUsage)
		}
		rest = rest[1:]
	}
	if len(rest) == 2 && rest[0] == awaitArg {
		if h.await, err = strconv.Atoi(rest[1]); err != nil || h.await < 3 || h.lifeline < 0 {
			return nil, errors.New(helperUsage)
		}
		return h, nil
	}
	switch {
	case len(rest) == 0:
	case rest[0] == "--" && len(rest) > 1:
		h.argv = rest[1:]
	default:
		return nil, errors.New(helperUsage)
	}
	return h, nil
}

// helperError is what the helper says on stderr when it cannot set the
// sandbox up.
func helperError(err error) int {
	fmt.Fprintf(os.Stderr, "rein: the sandbox could not be set up: %v\n", err)
	return helperFailed
}
