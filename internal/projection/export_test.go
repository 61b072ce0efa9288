package projection

import (
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

// Request is the request of [Project] alone, for the tests.
func Request(s *state.State, reg *registry.Registry, opts *Options) *contract.ModelRequest {
	return Project(s, reg, opts).Request
}

// EstimateTokens is [EstimateWith] at the default ratio,
// state.DefaultBytesPerToken bytes a token, for the tests.
func EstimateTokens(req *contract.ModelRequest) int {
	var c state.Calib
	return EstimateWith(&c, req)
}
