package endpoints

import (
	"fmt"
	"reflect"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/mediatype"
)

// Media declares a media response: a status whose body is not JSON (an
// image, a CSV file, an event stream) in one of the listed media types.
// The host never checks such a body, and streams it: each write of the
// handler reaches the client at once (docs/spec.md §3, §5).
//
//	200: endpoints.Media("The avatar", "image/png", "image/webp"),
//
// The contract says {"description": ..., "media": [...]}; the OpenAPI
// document lists each type with a binary string schema.
//
// # Notes
//
//   - Types are concrete media types (RFC 9110 §8.3.1), parameters
//     allowed: "image/png", "text/csv; charset=utf-8". A range
//     ("image/*"), a string that does not parse, a type listed twice or no
//     type at all panics at registration, naming the operation and the
//     type.
//   - When the 2xx responses of an operation offer more than one media
//     type between them, the host chooses one with the client's Accept
//     header (406 when none fits) and the handler reads the choice with
//     [MediaType].
//   - Answer with [Stream], [EventStream] or [Bytes]. Without a
//     Content-Type of its own, the answer is sent as the negotiated type,
//     else as the first listed.
func Media(description string, types ...string) Response {
	return Response{description: description, media: types, isMedia: true}
}

// MediaOf declares a media response like [Media] whose schema, derived
// from T, documents the payload, or one event or chunk of a stream. The
// host does not validate it; clients and the OpenAPI document show it.
//
//	200: endpoints.MediaOf[Tick]("A tick a second", "text/event-stream"),
func MediaOf[T any](description string, types ...string) Response {
	return Response{description: description, typ: reflect.TypeFor[T](), media: types, isMedia: true}
}

// JSONAs declares a JSON response sent with a JSON profile instead of
// application/json, such as application/problem+json (RFC 9457). Its
// schema is derived from T and the host validates the body as for [JSON];
// an answer without a Content-Type is sent as contentType.
//
//	400: endpoints.JSONAs[Problem]("Bad input", "application/problem+json"),
//
// # Notes
//
//   - contentType must be application/json or application/<name>+json,
//     parameters allowed; anything else panics at registration. Other
//     media types are declared with [Media]. An empty contentType is
//     application/json, as with [JSON].
func JSONAs[T any](description, contentType string) Response {
	return Response{description: description, typ: reflect.TypeFor[T](), contentType: contentType}
}

// check applies the contract's rules on media types (package
// abi/contract: endpoints/media-type, endpoints/media-duplicate,
// endpoints/json-profile), so that a bad declaration fails at
// registration rather than at the host's load.
func (r Response) check() error {
	if r.contentType != "" && !mediatype.IsJSON(r.contentType) {
		return fmt.Errorf("JSONAs: content type %q is not application/json or application/<name>+json; declare other media types with Media", r.contentType)
	}
	if !r.isMedia {
		return nil
	}
	if len(r.media) == 0 {
		return fmt.Errorf("Media declares no media type: list the types the response sends, such as \"image/png\"")
	}
	seen := make(map[string]string, len(r.media))
	for _, t := range r.media {
		canon, wildcard, err := mediatype.Parse(t)
		switch {
		case err != nil:
			return fmt.Errorf("Media: %q is not a media type: %v", t, err)
		case wildcard:
			return fmt.Errorf("Media: %q is a media range; declare the concrete types the response sends, such as \"image/png\"", t)
		}
		if first, dup := seen[canon]; dup {
			return fmt.Errorf("Media: %q is the same media type as %q (media types are case-insensitive)", t, first)
		}
		seen[canon] = t
	}
	return nil
}

// MediaType returns the media type the host chose for the answer to the
// current request, from the client's Accept header (RFC 9110 §12.5.1): one
// of the types the operation's 2xx responses offer. It returns "" when the
// operation offers a single type (nothing to choose), outside a request,
// and in a plain route.
//
//	switch endpoints.MediaType() {
//	case "image/svg+xml":
//		return endpoints.Bytes(200, "image/svg+xml", svg)
//	default:
//		return endpoints.Bytes(200, "image/png", png)
//	}
//
// The host answers 406 itself when no offered type is acceptable, so the
// handler only sees types it declared. The value comes from the request
// envelope the SDK has already read; calling it costs no host call.
func MediaType() string {
	return envelopeString(&request.mediaType, keyMediaType, "MediaType")
}

// ContentType returns the media type of the current request's body as the
// client sent it, in lower case and without parameters
// ("multipart/form-data", "text/csv"): one that the Body's content tag
// accepts (see [File] and the package documentation). It returns "" for a
// request without a body, outside a request and in a plain route (read
// the Content-Type header there).
//
//	type importRows struct {
//		Body io.Reader `content:"text/csv,application/x-ndjson"`
//	}
//
//	if endpoints.ContentType() == "text/csv" {
//		return importCSV(in.Body)
//	}
//	return importNDJSON(in.Body)
//
// Like [MediaType], it reads the envelope the SDK has already read.
func ContentType() string {
	return envelopeString(&request.contentType, keyContentType, "ContentType")
}

// envelopeString decodes the string member key of the request envelope,
// kept in *raw once the envelope was scanned; fn names the caller in logs.
func envelopeString(raw *[]byte, key, fn string) string {
	scanEnvelope()
	if *raw == nil {
		return ""
	}
	s, err := decodeString(*raw)
	if err != nil {
		hostLog(abi.LogWarn, "endpoints: "+fn+": the envelope's "+key+" member: "+err.Error())
		return ""
	}
	return s
}
