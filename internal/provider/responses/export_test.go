package responses

import "github.com/rein-agent/rein/internal/contract"

// BuildRequest is buildRequest for OpenAI's own API (which takes
// prompt_cache_key), for the tests.
func BuildRequest(req *contract.ModelRequest, model string) ([]byte, error) {
	return buildRequest(req, model, true)
}
