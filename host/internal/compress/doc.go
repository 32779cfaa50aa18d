// Package compress compresses the host's buffered answers for the
// clients that accept it: zstd or gzip, chosen by the request's
// Accept-Encoding (RFC 9110 §12.5.3), applied at send time by a writer
// that wraps the server's [http.ResponseWriter].
//
// An answer is compressed when all of these hold:
//
//   - its length is known before its body (Content-Length is set, as it
//     is for every buffered answer and replay), at least
//     [Options.MinBytes] and at most [Options.MaxBytes];
//   - its media type is one that compresses (text, JSON, XML, YAML,
//     JavaScript, SVG, WebAssembly, form data: see [Compressible]), so
//     images, archives and other already-compressed media are left
//     alone;
//   - it has no Content-Encoding of its own, no Content-Range, no
//     Cache-Control: no-transform, and a status that carries a body
//     (not 1xx, 204, 206 or 304);
//   - the request is not HEAD and accepts zstd or gzip with a q-value
//     above zero and at least that of identity.
//
// Every answer that passes the first three tests carries
// Vary: Accept-Encoding, compressed or not, so a cache keeps the
// encodings apart; a 304 carries it too. A compressed answer's ETag is
// made weak (W/"..."), so it never shares a strong validator with the
// identity bytes (RFC 9110 §8.8.3); If-None-Match compares weakly, so the
// weak tag still revalidates.
//
// Streams (Server-Sent Events, media answers, anything written without a
// Content-Length) are never compressed: compressing them would need a
// flush of the compressor per event. A handler that flushes a buffered
// answer before its last byte ends its compression too: what was held
// goes out as it is.
//
// The writer compresses the whole body at once, once the declared
// Content-Length has arrived, so the compressed answer has a
// Content-Length too; when compression does not make it smaller, the
// identity bytes go out. What the handler wrote (and what an idempotency
// store keeps for replay) stays the identity answer.
package compress
