package idempotency

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/formdata"
	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
)

// parseKey reads the Idempotency-Key header: one value of 1-255 visible
// ASCII characters without commas, or the same as a quoted structured-field
// string (RFC 8941 §3.3.3), which is unquoted. The reason says what is
// wrong.
func parseKey(values []string) (key, reason string) {
	if len(values) != 1 {
		return "", fmt.Sprintf("send one Idempotency-Key header, not %d", len(values))
	}
	key = strings.TrimSpace(values[0])
	if strings.HasPrefix(key, `"`) {
		var b strings.Builder
		closed := false
		for i := 1; i < len(key); i++ {
			c := key[i]
			switch {
			case c == '\\' && i+1 < len(key) && (key[i+1] == '"' || key[i+1] == '\\'):
				b.WriteByte(key[i+1])
				i++
			case c == '"' && i == len(key)-1:
				closed = true
			case c < 0x20 || c > 0x7e || c == '"' || c == '\\':
				return "", "the quoted key is not a structured-field string (RFC 8941 §3.3.3)"
			default:
				b.WriteByte(c)
			}
		}
		if !closed {
			return "", "the quoted key has no closing quote"
		}
		key = b.String()
	}
	switch {
	case len(key) == 0:
		return "", "the key is empty"
	case len(key) > 255:
		return "", fmt.Sprintf("the key has %d characters; at most 255 are allowed", len(key))
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x21 || c > 0x7e || c == ',' {
			return "", fmt.Sprintf("the key holds %q at byte %d; only visible ASCII characters other than ',' are allowed", c, i)
		}
	}
	return key, ""
}

// storageKey is where a key's record lives: a hash of the app, the
// operation, the scope header's value, the client and the client's key, so
// the raw key is never stored and keys of different routes or clients
// never meet. The client is the principal the host verified (its scheme
// and subject), or nobody for an anonymous request, whose record is
// reached by the key alone (docs/spec.md §6). Each part is hashed with its
// length before it, so no two lists of parts hash alike, whatever bytes a
// subject holds.
func storageKey(namespace, method, route, scope string, client *abi.Principal, key string) string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	write := func(s string) {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		io.WriteString(h, s)
	}
	for _, s := range []string{namespace, method, route, scope} {
		write(s)
	}
	if client == nil {
		h.Write([]byte{0}) // anonymous
	} else {
		h.Write([]byte{1})
		write(client.Scheme)
		write(client.Subject)
	}
	write(key)
	return hex.EncodeToString(h.Sum(nil))
}

// clientID is whose share of the store a record counts against
// (storage.Client.ID): the verified principal, by a hash of its scheme and
// subject (so the ID is short whatever the subject holds), else the
// client's address.
//
//	clientID(nil, "192.0.2.7")                                   // "addr:192.0.2.7"
//	clientID(&abi.Principal{Scheme: "bearer", Subject: "alice"}, ...) // "sub:" + 64 hex digits
func clientID(p *abi.Principal, address string) string {
	if p == nil {
		return "addr:" + address
	}
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, s := range []string{p.Scheme, p.Subject} {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		io.WriteString(h, s)
	}
	return "sub:" + hex.EncodeToString(h.Sum(nil))
}

// Parts are the validated request parts a fingerprint hashes.
type Parts struct {
	Params, Query map[string]any
	// Body is the decoded body; nil when it was not decoded, when BodyRaw
	// (if not nil) holds it.
	Body    any
	BodyRaw []byte
	// Multipart holds an upload's files, nil for other bodies.
	Multipart *formdata.Multipart
}

// fingerprint hashes the validated parts the contract names (params,
// query and body by default) as canonical JSON with sorted keys. A body
// with no decoded value counts by its raw bytes; an upload's files by
// their contents. scratch is reused for the JSON.
func fingerprint(p Parts, parts []string, scratch *[]byte) (string, error) {
	if len(parts) == 0 {
		parts = []string{"params", "query", "body"}
	}
	h := sha256.New()
	buf := (*scratch)[:0]
	for _, part := range parts {
		buf = append(buf[:0], part...)
		buf = append(buf, 0)
		switch part {
		case "params":
			buf = jsonvalue.AppendValue(buf, p.Params)
		case "query":
			buf = jsonvalue.AppendValue(buf, p.Query)
		case "body":
			switch {
			case p.Body != nil:
				buf = jsonvalue.AppendValue(buf, p.Body)
			case p.BodyRaw != nil:
				sum := sha256.Sum256(p.BodyRaw)
				buf = append(buf, sum[:]...)
			}
		}
		buf = append(buf, 0)
		h.Write(buf)
		if part == "body" && p.Multipart != nil {
			for _, f := range p.Multipart.Files {
				if _, err := io.Copy(h, f); err != nil {
					return "", fmt.Errorf("reading an uploaded file: %w", err)
				}
				f.Rewind()
			}
		}
	}
	*scratch = buf
	return hex.EncodeToString(h.Sum(nil)), nil
}
