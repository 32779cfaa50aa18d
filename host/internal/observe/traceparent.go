package observe

import "net/http"

// TraceparentHeader carries the W3C Trace Context of a request
// (https://www.w3.org/TR/trace-context/#traceparent-header), set by the
// client, a proxy in front or observe/otel's server span.
const TraceparentHeader = "Traceparent"

// TraceID returns the trace id of the request's traceparent header: the
// 32 lowercase hexadecimal digits of a version 00 header
// ("00-<trace id>-<parent id>-<flags>") whose trace and parent ids are not
// all zeros. Anything else (no header, several, another version, upper
// case, a wrong length) gives "": the host never invents a trace id, and
// an invalid header is ignored as the W3C recommendation says. The result
// is a substring of the header: it does not allocate.
func TraceID(h http.Header) string {
	vs := h[TraceparentHeader]
	if len(vs) != 1 {
		return ""
	}
	v := vs[0]
	// 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
	if len(v) != 55 || v[0] != '0' || v[1] != '0' || v[2] != '-' || v[35] != '-' || v[52] != '-' {
		return ""
	}
	trace, parent, flags := v[3:35], v[36:52], v[53:55]
	if !lowerHex(trace) || !lowerHex(parent) || !lowerHex(flags) || allZeros(trace) || allZeros(parent) {
		return ""
	}
	return trace
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func allZeros(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return false
		}
	}
	return true
}
