package host

// RoutesConfigFile is the routes configuration of an app (docs/spec.md §7).
const RoutesConfigFile = "server/routes.config.json"

// Document returns the app's OpenAPI document as served, whether or not
// the schema route is enabled.
func (h *Host) Document() []byte {
	if d := h.table.Load().Doc; d != nil {
		return d.JSON
	}
	return nil
}

// documentProblem explains, in development (mode), why there is no
// document.
func documentProblem(t *table, mode Mode) any {
	if mode != Development || t.DocErr == nil {
		return nil
	}
	return map[string]string{"error": t.DocErr.Error()}
}
