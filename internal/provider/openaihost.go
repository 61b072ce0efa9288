package provider

import (
	"net/url"
	"strings"
)

// OpenAIHost reports whether rawURL is on OpenAI's own API
// (api.openai.com) or on Azure OpenAI (*.openai.azure.com): the servers
// that speak OpenAI's APIs exactly, the fields compatible servers may
// refuse (such as prompt_cache_key) included. A URL that does not parse is
// not.
func OpenAIHost(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return host == "api.openai.com" || strings.HasSuffix(host, ".openai.azure.com")
}
