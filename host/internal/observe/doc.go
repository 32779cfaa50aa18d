// Package observe is the machinery under the host's observers
// (host.Observer): the writer that counts an observed request's answer
// and carries what the host learned of it ([Exchange]), the trace id of a
// request's W3C traceparent header ([TraceID]), and the joining of structs
// of hooks ([Joiner], for host.JoinObservers). The events and hooks
// themselves are host's public API; this package knows nothing of them.
package observe
