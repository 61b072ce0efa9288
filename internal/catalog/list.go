package catalog

import (
	"slices"
)

// Models returns the ids of the models the catalogue lists for vendor
// (rein's provider name: openai, responses, anthropic, gemini), sorted and
// without repeats; nil for a vendor it does not know. The person's entries
// are not among them: they belong to no vendor.
func (c *Catalog) Models(vendor string) []string {
	v, ok := vendors[vendor]
	if !ok {
		return nil
	}
	i := providerOf(c.providers, v)
	if i < 0 {
		return nil
	}
	ids := slices.Clone(c.providers[i].IDs)
	slices.Sort(ids)
	return slices.Compact(ids)
}
