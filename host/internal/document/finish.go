package document

import (
	"context"
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/schemedoc"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Additions are what the host adds to the document of the routes
// ([BuildRoutes]), in the order [Finish] applies them.
type Additions struct {
	// Runtime is the runtime declaration's openApi part: its fragment is
	// merged, then its extend export runs. Nil when the app has none, or
	// when a development version left it out.
	Runtime *abi.RuntimeOpenAPI
	// Extend runs the runtime declaration's extend export on the encoded
	// document and returns the document it wrote; Finish calls it only
	// when Runtime.Extend is set.
	Extend func(ctx context.Context, doc []byte) ([]byte, error)
	// Security are endpoints.json's security schemes, which declare
	// themselves after the runtime declaration (its declaration of one
	// wins if it agrees: package schemedoc).
	Security map[string]auth.Config
	// Embedder is host.Options.OpenAPI: its Document fragment is merged,
	// then its Extend func runs, last.
	Embedder config.OpenAPI
}

// Finish adds a to doc, the routes' document, and returns its served
// form. Errors name what failed: the runtime declaration's fragment or
// extend step, a security scheme, the embedder's fragment or Extend.
func Finish(ctx context.Context, doc *openapi.Document, a Additions) (*Served, error) {
	if rt := a.Runtime; rt != nil {
		if len(rt.Document) > 0 {
			if err := doc.Merge(rt.Document); err != nil {
				return nil, fmt.Errorf("%s: openApi.document: %w", abi.RuntimeModule, err)
			}
		}
		if rt.Extend {
			b, err := encode(doc)
			if err != nil {
				return nil, err
			}
			out, err := a.Extend(ctx, b)
			if err != nil {
				return nil, err
			}
			var edited openapi.Document
			if err := json.Unmarshal(out, &edited); err != nil {
				return nil, fmt.Errorf("%s: openApi.extend wrote a document that does not decode: %v", abi.RuntimeModule, err)
			}
			doc = &edited
		}
	}
	if err := schemedoc.Apply(doc, a.Security, config.File); err != nil {
		return nil, err
	}
	if frag := a.Embedder.Document; len(frag) > 0 {
		if err := doc.Merge(frag); err != nil {
			return nil, fmt.Errorf("Options.OpenAPI.Document: %w", err)
		}
	}
	if ext := a.Embedder.Extend; ext != nil {
		if err := ext(doc); err != nil {
			return nil, fmt.Errorf("Options.OpenAPI.Extend: %w", err)
		}
	}
	return Encode(doc)
}
