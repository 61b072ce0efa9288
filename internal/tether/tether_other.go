//go:build !linux

package tether

import "os/exec"

// wrap leaves cmd alone: only Linux has the helper.
func wrap(*exec.Cmd) error { return nil }
