package llm

import "strings"

// QueryPrefix and DocPrefix are the task prefixes some embedding models were trained
// with, put before a search query and before a passage.
func QueryPrefix(model string) string {
	if strings.Contains(model, "nomic-embed") {
		return "search_query: "
	}
	return ""
}

// DocPrefix: see [QueryPrefix].
func DocPrefix(model string) string {
	if strings.Contains(model, "nomic-embed") {
		return "search_document: "
	}
	return ""
}
