package endpoints

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
)

// Bytes returns a Reply with a whole binary body: an image, a file, a
// document rendered in memory. contentType is sent as the Content-Type
// header unless it is empty; the host then sends the negotiated type (see
// [MediaType]) or the first type the status declares with [Media].
//
//	return endpoints.Bytes(200, "image/png", png)
//
// The body is handed to the host in one piece. Declare the status with
// [Media] or [MediaOf]: a status declared as JSON is checked as JSON.
func Bytes(status int, contentType string, body []byte) Reply {
	r := Reply{status: status, kind: replyBytes, bytes: body}
	if contentType != "" {
		r.defaults = []headerField{{contentTypeHeader, contentType}}
	}
	return r
}

// Stream returns a Reply whose body write produces piece by piece: a large
// file, a CSV export, a log tail. The SDK sets the status, the Content-Type
// (unless contentType is empty, as for [Bytes]) and the reply's headers,
// then calls write with a writer whose every Write goes to the host at
// once; for a status declared with [Media] or [MediaOf] the host sends
// each one to the client and flushes it (docs/spec.md §5).
//
//	return endpoints.Stream(200, "text/csv", func(w io.Writer) error {
//		for _, row := range rows {
//			if _, err := fmt.Fprintf(w, "%d,%s\n", row.ID, row.Name); err != nil {
//				return err // the client went away
//			}
//		}
//		return nil
//	})
//
// # Notes
//
//   - Status and headers are fixed before write runs: they go to the
//     client with the first byte.
//   - Each Write is one chunk on the client, so write whole records
//     (wrap w in a bufio.Writer to batch small ones). An empty Write
//     sends nothing.
//   - An error returned by write, or a failed Write it ignored, is logged
//     and fails the request: before the first byte the host answers 500;
//     after it the host aborts the response, so the client sees it cut
//     short rather than complete. A Write fails with an error wrapping
//     [abi.ErrIO] when the client went away.
//   - For a HEAD request write is not called: the host would drop the body.
//   - A status declared as JSON, or no Responses at all, makes the host
//     buffer the answer instead of streaming it.
func Stream(status int, contentType string, write func(w io.Writer) error) Reply {
	r := Reply{status: status, kind: replyStream, stream: write}
	if contentType != "" {
		r.defaults = []headerField{{contentTypeHeader, contentType}}
	}
	return r
}

// contentTypeHeader is the header Bytes and Stream set.
const contentTypeHeader = "Content-Type"

// errNilStream is a Stream or EventStream built with a nil function.
var errNilStream = errors.New("the Stream or EventStream function is nil")

// errStreamEnded is a write after the stream's function returned.
var errStreamEnded = errors.New("endpoints: write after the stream's function returned")

// streamWriter hands each Write to the response_write host function. It
// keeps the first error; later writes return it.
type streamWriter struct {
	sent  int64 // bytes the host accepted
	err   error
	ended bool
}

func (w *streamWriter) Write(p []byte) (int, error) {
	switch {
	case w.err != nil:
		return 0, w.err
	case w.ended:
		return 0, errStreamEnded
	case len(p) == 0:
		return 0, nil
	}
	if err := check(abi.ImportResponseWrite, responseWrite(p)); err != nil {
		w.err = fmt.Errorf("endpoints: %w", err)
		return 0, w.err
	}
	w.sent += int64(len(p))
	return len(p), nil
}

// writeStream runs a stream's function once status and headers are set.
func writeStream(reply Reply, envelope []byte) error {
	if method, _ := envelopeMethod(envelope); method == "HEAD" {
		return nil
	}
	w := &streamWriter{}
	defer func() { w.ended = true }()
	err := reply.stream(w)
	if err == nil {
		err = w.err
	}
	switch {
	case err == nil:
		return nil
	case w.sent > 0:
		return fmt.Errorf("the %d stream failed after %d bytes were sent (the client sees the response cut short): %w", reply.status, w.sent, err)
	}
	return fmt.Errorf("the %d stream failed before any byte was sent: %w", reply.status, err)
}

// Event is one Server-Sent Event (HTML Living Standard, §9.2 "Server-sent
// events"). Every field is optional.
//
//	send(endpoints.Event{ID: "42", Event: "price", Data: Price{Symbol: "ACME", Cents: 1234}})
//
// is sent as
//
//	id: 42
//	event: price
//	data: {"symbol":"ACME","cents":1234}
//
// # Notes
//
//   - An Event with no field set is a keep-alive: a comment line (":")
//     that clients ignore, and that makes idle proxies see traffic.
//   - An Event with a Retry or an ID but no Data dispatches nothing on the
//     client; it sets the reconnection time or the last event ID.
type Event struct {
	// ID sets the client's last event ID, which a reconnecting
	// EventSource sends back as the Last-Event-ID request header. It must
	// not hold CR, LF or NUL.
	ID string
	// Event is the event type (addEventListener's name); empty means
	// "message". It must not hold CR or LF.
	Event string
	// Data is the payload: a string or []byte is sent as it is, split into
	// one "data:" line per line (CR, LF and CRLF end lines); any other
	// value is encoded with encoding/json. Nil sends no data.
	Data any
	// Retry is the reconnection time in milliseconds; 0 sends none and it
	// must not be negative.
	Retry int
}

// appendTo appends the event's text/event-stream frame, with the blank
// line that ends it, to buf. enc encodes Data into jbuf.
func (e *Event) appendTo(buf []byte, jbuf *bytes.Buffer, enc *json.Encoder) ([]byte, error) {
	switch {
	case strings.ContainsAny(e.ID, "\r\n\x00"):
		return buf, fmt.Errorf("endpoints: Event.ID %q holds CR, LF or NUL", e.ID)
	case strings.ContainsAny(e.Event, "\r\n"):
		return buf, fmt.Errorf("endpoints: Event.Event %q holds CR or LF", e.Event)
	case e.Retry < 0:
		return buf, fmt.Errorf("endpoints: Event.Retry %d is negative", e.Retry)
	case e.ID == "" && e.Event == "" && e.Data == nil && e.Retry == 0:
		return append(buf, ":\n\n"...), nil
	}
	if e.ID != "" {
		buf = append(append(append(buf, "id: "...), e.ID...), '\n')
	}
	if e.Event != "" {
		buf = append(append(append(buf, "event: "...), e.Event...), '\n')
	}
	if e.Retry > 0 {
		buf = append(strconv.AppendInt(append(buf, "retry: "...), int64(e.Retry), 10), '\n')
	}
	var data []byte
	switch d := e.Data.(type) {
	case nil:
		return append(buf, '\n'), nil
	case string:
		data = []byte(d)
	case []byte:
		data = d
	default:
		jbuf.Reset()
		if err := enc.Encode(d); err != nil {
			return buf, fmt.Errorf("endpoints: Event.Data: %w", err)
		}
		data = bytes.TrimSuffix(jbuf.Bytes(), []byte{'\n'})
	}
	for {
		line, rest, more := cutLine(data)
		buf = append(buf, "data:"...)
		if len(line) > 0 {
			buf = append(append(buf, ' '), line...)
		}
		buf = append(buf, '\n')
		if !more {
			break
		}
		data = rest
	}
	return append(buf, '\n'), nil
}

// cutLine cuts data at its first line end: CRLF, LF or CR.
func cutLine(data []byte) (line, rest []byte, found bool) {
	i := bytes.IndexAny(data, "\r\n")
	if i < 0 {
		return data, nil, false
	}
	if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
		return data[:i], data[i+2:], true
	}
	return data[:i], data[i+1:], true
}

// EventStream returns a Reply that streams Server-Sent Events: status
// 200, Content-Type text/event-stream and Cache-Control no-cache, then
// whatever events sends. Each call of send is one write to the host, so
// one flushed chunk on the client.
//
//	return endpoints.EventStream(func(send func(endpoints.Event) error) error {
//		for i := range 3 {
//			if err := send(endpoints.Event{ID: strconv.Itoa(i), Data: Tick{N: i}}); err != nil {
//				return err // the client went away
//			}
//			time.Sleep(time.Second)
//		}
//		return nil
//	})
//
// Declare the status with [MediaOf] so that the host streams it and the
// document shows the shape of one event's data:
//
//	200: endpoints.MediaOf[Tick]("A tick a second", "text/event-stream"),
//
// # Notes
//
//   - send returns an error for an Event it cannot encode (a line break in
//     ID, Data that encoding/json refuses) without sending anything, and
//     an error wrapping [abi.ErrIO] when the client went away; the rules
//     of [Stream] apply to the error events returns.
//   - The stream lasts at most the host's call deadline (10 s by
//     default); a client's EventSource reconnects, sending the last ID it
//     saw as the Last-Event-ID header, which a handler can read with
//     [Header] or a declared header parameter.
//   - time.Sleep works in a module: the host provides real clocks.
func EventStream(events func(send func(Event) error) error) Reply {
	if events == nil {
		return Reply{status: 200, kind: replyStream}
	}
	r := Stream(200, "text/event-stream", func(w io.Writer) error {
		var (
			frame []byte
			jbuf  bytes.Buffer
			ended bool
		)
		enc := json.NewEncoder(&jbuf)
		defer func() { ended = true }()
		return events(func(e Event) error {
			if ended {
				return errStreamEnded
			}
			var err error
			if frame, err = e.appendTo(frame[:0], &jbuf, enc); err != nil {
				return err
			}
			_, err = w.Write(frame)
			return err
		})
	})
	r.defaults = append(r.defaults, headerField{"Cache-Control", "no-cache"})
	return r
}
