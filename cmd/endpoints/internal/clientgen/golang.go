package clientgen

import (
	"bytes"
	"fmt"
	"go/format"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmendpoints/endpoints/openapi"
)

// GoOptions configures [Go].
type GoOptions struct {
	// Package is the package name of the generated file. Defaults to
	// "client".
	Package string
}

// Go generates a typed Go client for the app: one gofmt'ed file that
// needs the standard library only (Go 1.24 or newer) and holds
//
//   - a type per named schema and per inline schema that needs a name
//     (see typeOf for the mapping);
//   - Client and New, and one Client method per operation, named from its
//     operationId (getApiUsersById → GetAPIUsersByID);
//   - per operation with inputs a request struct: path, query and header
//     parameters typed from their schemas (optional ones are pointers,
//     nil leaves them out), Accept when the operation negotiates,
//     IdempotencyKey when it takes one, and the body;
//   - per operation a response struct: Status, Header, and one field per
//     status (and media type, when a status has several), of which exactly
//     the one for Status is set. JSON answers are decoded; media answers
//     are an io.ReadCloser; Server-Sent Events an *EventStream of the
//     event's type.
//
// A status the operation does not declare is a *ResponseError wrapping
// ErrUndeclaredStatus; transport failures are errors too.
//
//	src, err := clientgen.Go(model, clientgen.GoOptions{Package: "users"})
//
// # Notes
//
//   - When an operation requires an Idempotency-Key and the request has
//     none, the method makes one (a random UUID) and stores it in the
//     request, so calling again with the same request is a retry.
//   - Output is deterministic: names are claimed in a fixed order, and a
//     name taken twice gets a numeric suffix.
func Go(m *Model, opts GoOptions) ([]byte, error) {
	pkg := opts.Package
	if pkg == "" {
		pkg = "client"
	}
	if !token.IsIdentifier(pkg) || token.IsKeyword(pkg) || pkg == "_" {
		return nil, fmt.Errorf("Go client: package name %q: want a Go identifier", pkg)
	}
	g := &goGen{
		m: m, pkg: pkg,
		schemaTypes: map[string]string{}, declared: map[string]bool{}, inProgress: map[string]bool{},
		pointerTo: map[string]bool{}, under: map[string]string{}, decls: map[string][]string{},
		imports: map[string]bool{}, forms: map[string]goFormInfo{}, fieldTypes: map[string]map[string]string{}, respFields: map[*Operation][]goResponseField{},
	}
	return g.generate()
}

// goGen generates one Go client.
type goGen struct {
	m   *Model
	pkg string

	names       *goNamer          // package-level identifiers
	schemaTypes map[string]string // components/schemas name → Go type
	declared    map[string]bool   // named schemas declared so far
	inProgress  map[string]bool   // Go types of the named schemas being declared
	pointerTo   map[string]bool   // named schemas that are nullable: used as pointers
	under       map[string]string // declared type → goDeclStruct, goDeclUnion or its underlying type

	group   string              // whose declarations are being written
	decls   map[string][]string // group → declarations, in the order they were made
	imports map[string]bool
	uses    map[string]bool // runtime parts the operations need
	err     error

	forms      map[string]goFormInfo            // form body types → their fields
	fieldTypes map[string]map[string]string     // struct → property → Go type, before the optional pointer
	respFields map[*Operation][]goResponseField // made once per operation
}

// goOperation is an operation with its Go names.
type goOperation struct {
	*Operation
	method, request, response string
	label                     string // "GET /api/users/:id", for errors
	inputs                    bool   // the method takes a request
	negotiates                bool   // 2xx answers come in more than one media type
}

func (g *goGen) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

// declare adds a declaration to the current group.
func (g *goGen) declare(code string) {
	g.decls[g.group] = append(g.decls[g.group], code)
}

// reserve keeps the place of a declaration written after the ones it
// needs, so that a type comes before the types of its fields.
func (g *goGen) reserve() int {
	g.decls[g.group] = append(g.decls[g.group], "")
	return len(g.decls[g.group]) - 1
}

func (g *goGen) fill(slot int, code string) { g.decls[g.group][slot] = code }

func (g *goGen) generate() ([]byte, error) {
	g.uses = map[string]bool{}
	ops := make([]*goOperation, len(g.m.Operations))
	for i := range g.m.Operations {
		op := &g.m.Operations[i]
		ops[i] = &goOperation{Operation: op, label: op.Method + " " + op.Path}
		o := ops[i]
		o.inputs = len(op.Params) > 0 || len(op.Query) > 0 || len(op.Headers) > 0 || op.Body != nil || op.Idempotency
		o.negotiates = len(goSuccessTypes(op)) > 1
		o.inputs = o.inputs || o.negotiates
		for _, r := range op.Responses {
			for _, c := range r.Content {
				switch c.Kind() {
				case KindEvents:
					g.uses["events"] = true
				case KindJSON:
					g.uses["json"] = true
				}
			}
			if len(r.Content) == 0 {
				g.uses["discard"] = true
			}
		}
		if op.Body != nil {
			for _, c := range op.Body.Content {
				if c.Kind() == KindMulti {
					g.uses["multipart"] = true
				}
			}
		}
		if op.IdempotencyRequired {
			g.uses["idempotency"] = true
		}
	}

	// Names are claimed in a fixed order: the runtime's, the named schemas
	// (sorted), the operations' methods and types; then the inline types
	// as they are met.
	g.names = newGoNamer("Client", "New", "ResponseError", "ErrUndeclaredStatus", "ErrUndeclaredMediaType", "ErrNotVariant")
	if g.uses["events"] {
		g.names.claim("EventStream")
		g.names.claim("Event")
	}
	if g.uses["multipart"] {
		g.names.claim("File")
	}
	schemaNames := slices.Sorted(maps.Keys(g.m.Schemas))
	for _, name := range schemaNames {
		g.schemaTypes[name] = g.names.claim(goName(name))
	}
	methods := newGoNamer("BaseURL", "HTTPClient", "Header", "do")
	for _, o := range ops {
		id := o.OperationID
		if id == "" {
			id = openapi.OperationID(o.Method, o.OpenAPIPath)
		}
		o.method = methods.claim(goName(id))
		if o.inputs {
			o.request = g.names.claim(o.method + "Request")
		}
		o.response = g.names.claim(o.method + "Response")
	}

	for _, name := range schemaNames {
		g.named(name)
	}
	for i, o := range ops {
		g.group = fmt.Sprintf("operation %d", i)
		g.operation(o)
	}
	if g.err != nil {
		return nil, fmt.Errorf("Go client: %w", g.err)
	}

	var body bytes.Buffer
	body.WriteString(g.clientCode())
	for i := range ops {
		for _, d := range g.decls[fmt.Sprintf("operation %d", i)] {
			body.WriteString("\n" + d)
		}
	}
	for _, name := range schemaNames {
		for _, d := range g.decls["schema "+name] {
			body.WriteString("\n" + d)
		}
	}
	body.WriteString(g.runtimeCode())

	var out bytes.Buffer
	out.WriteString("// Code generated by endpoints client --lang go. DO NOT EDIT.\n\n")
	out.WriteString(g.packageDoc(ops))
	fmt.Fprintf(&out, "package %s\n\nimport (\n", g.pkg)
	for _, imp := range slices.Sorted(maps.Keys(g.imports)) {
		fmt.Fprintf(&out, "\t%q\n", imp)
	}
	out.WriteString(")\n")
	out.Write(body.Bytes())
	src, err := format.Source(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("Go client: the generated code does not parse (a bug of the generator): %w\n%s", err, out.Bytes())
	}
	return src, nil
}

// packageDoc is the package comment: what the package calls and how to
// read its answers.
func (g *goGen) packageDoc(ops []*goOperation) string {
	title := strings.TrimSpace(g.m.Title + " " + g.m.Version)
	if title == "" {
		title = "the app"
	}
	var b strings.Builder
	goWriteDoc(&b, "", fmt.Sprintf("Package %s calls %s over HTTP. It was generated from the app's contracts by "+
		"endpoints client: one Client method per operation, taking a request typed from the operation's "+
		"parameters and body and answering a response with one field per status the operation can answer, "+
		"the framework's answers (validation, content negotiation, idempotency) included.", g.pkg, title))
	if len(ops) > 0 {
		o := ops[0]
		for _, op := range ops {
			if op.Method == "GET" && len(op.Params) > 0 {
				o = op
				break
			}
		}
		b.WriteString("//\n")
		fmt.Fprintf(&b, "//\tc := %s.New(\"http://127.0.0.1:3000\")\n", g.pkg)
		if o.inputs {
			fmt.Fprintf(&b, "//\tres, err := c.%s(ctx, &%s.%s{ /* ... */ })\n", o.method, g.pkg, o.request)
		} else {
			fmt.Fprintf(&b, "//\tres, err := c.%s(ctx)\n", o.method)
		}
		b.WriteString("//\tif err != nil {\n//\t\treturn err // a transport failure, or an answer the contract does not declare\n//\t}\n")
		b.WriteString("//\tswitch {\n")
		for _, f := range g.responseFields(o)[:min(2, len(g.responseFields(o)))] {
			fmt.Fprintf(&b, "//\tcase res.%s%s: // %d\n", f.name, map[bool]string{true: "", false: " != nil"}[f.kind == ""], f.status)
		}
		b.WriteString("//\t}\n")
	}
	b.WriteString("//\n// # Notes\n//\n")
	for _, note := range []string{
		"Exactly one status field of a response is set: the one for its Status (and media type, when a " +
			"status has several). A status the operation does not declare is a *ResponseError wrapping " +
			"ErrUndeclaredStatus; a transport failure is the http.Client's error.",
		"Optional fields and parameters are pointers (nil slices and maps), left out when nil; optional " +
			"struct fields are tagged omitzero. Required slices must not be nil: nil encodes as null.",
		"A date-time is a time.Time, other formats (date, email, ...) are strings, enums of strings are " +
			"string types with constants, " +
			"oneOf/anyOf keep the JSON as it came with an As method per variant (an error wrapping " +
			"ErrNotVariant when the JSON is not that variant), and the server checks " +
			"every constraint the types cannot say (minimum, pattern, ...).",
		"Media answers (io.ReadCloser) and event streams must be closed by the caller; the response's " +
			"Close method closes whichever is set.",
		"Needs Go 1.24 or newer.",
	} {
		var item strings.Builder
		goWriteDoc(&item, "", note)
		b.WriteString(strings.Replace(strings.ReplaceAll(item.String(), "\n// ", "\n//     "), "// ", "//   - ", 1))
	}
	return b.String()
}

// goSuccessTypes lists the media types of an operation's 2xx answers, in
// declaration order: the host negotiates when there are several (docs/spec.md
// §4, step 4).
func goSuccessTypes(op *Operation) []string {
	var media []string
	for _, r := range op.Responses {
		if r.Status >= 200 && r.Status < 300 {
			for _, c := range r.Content {
				if !slices.Contains(media, c.MediaType) {
					media = append(media, c.MediaType)
				}
			}
		}
	}
	return media
}

// goParam is how a parameter or a form field is written into a request.
type goParam struct {
	field  string // Go field name
	name   string // on the wire
	goType string // the field's type, before the optional pointer
	basic  string // string, int64, float64, bool, time.Time, or file (multipart)
	array  bool
	raw    bool // no scalar type: a string sent as it is written
	doc    string
}

// paramOf types a parameter, or a field of a form body, from its schema.
func (g *goGen) paramOf(field, name string, schema []byte, doc string, at goPlace, files bool) goParam {
	return g.paramTyped(field, name, schema, doc, at, files, "")
}

// paramTyped is paramOf for a schema whose Go type is known already (the
// field of a named struct), or "" when it is not.
func (g *goGen) paramTyped(field, name string, schema []byte, doc string, at goPlace, files bool, known string) goParam {
	p := goParam{field: field, name: name, doc: doc}
	s, err := parseGoSchema(schema)
	if err != nil {
		g.fail(fmt.Errorf("%s: %w", at.where, err))
		return p
	}
	if doc == "" {
		p.doc = s.Description
	}
	if notes := s.notes(); len(notes) > 0 {
		p.doc = strings.TrimSpace(p.doc + " " + strings.Join(notes, " "))
	}
	if files {
		if s.isFile() {
			p.goType, p.basic = "File", "file"
			return p
		}
		if items, err := parseGoSchema(s.Items); err == nil && len(s.Items) > 0 && items.isFile() {
			p.goType, p.basic, p.array = "[]File", "file", true
			return p
		}
	}
	t := known
	if t == "" {
		t = g.typeOf(schema, at)
	}
	t = strings.TrimPrefix(t, "*")
	if elem, ok := strings.CutPrefix(t, "[]"); ok && g.basicOf(elem) != "" {
		p.goType, p.basic, p.array = t, g.basicOf(elem), true
		return p
	}
	if b := g.basicOf(t); b != "" {
		p.goType, p.basic = t, b
		return p
	}
	p.goType, p.basic, p.raw = "string", "string", true
	return p
}

// format returns the expression that writes v, of the parameter's (element)
// type, as a string.
func (g *goGen) format(p goParam, v string) string {
	elem := strings.TrimPrefix(p.goType, "[]")
	conv := func(basic string) string {
		if elem == basic {
			return v
		}
		return basic + "(" + v + ")"
	}
	switch p.basic {
	case "int64":
		g.imports["strconv"] = true
		return "strconv.FormatInt(" + conv("int64") + ", 10)"
	case "float64":
		g.imports["strconv"] = true
		return "strconv.FormatFloat(" + conv("float64") + ", 'g', -1, 64)"
	case "bool":
		g.imports["strconv"] = true
		return "strconv.FormatBool(" + conv("bool") + ")"
	case goTime:
		g.imports["time"] = true
		t := conv(goTime)
		if strings.HasPrefix(t, "*") {
			t = "(" + t + ")" // *v.Format would dereference the string
		}
		return t + ".Format(time.RFC3339Nano)"
	}
	return conv("string")
}

// setParams writes the code that adds each parameter to dst with
// add(dst, name, value) — dst.Set and dst.Add for url.Values and
// http.Header.
func (g *goGen) setParams(b *strings.Builder, dst, src string, ps []goParam, required func(goParam) bool) {
	for _, p := range ps {
		v := src + "." + p.field
		switch {
		case p.array:
			fmt.Fprintf(b, "\tfor _, v := range %s {\n\t\t%s.Add(%q, %s)\n\t}\n", v, dst, p.name, g.format(p, "v"))
		case required(p):
			fmt.Fprintf(b, "\t%s.Set(%q, %s)\n", dst, p.name, g.format(p, v))
		default:
			fmt.Fprintf(b, "\tif %s != nil {\n\t\t%s.Set(%q, %s)\n\t}\n", v, dst, p.name, g.format(p, "*"+v))
		}
	}
}

// goBodyField is one way to send the request body.
type goBodyField struct {
	Content
	field  string // Go field of the request
	goType string // its type
	ranged bool   // the media type is a range: the caller says the type
}

// operation declares the method, request and response of an operation.
func (g *goGen) operation(o *goOperation) {
	// The method, then the request and response types, then the inline
	// types they need.
	methodSlot, requestSlot, responseSlot := g.reserve(), -1, g.reserve()
	if o.inputs {
		requestSlot = responseSlot
		responseSlot = g.reserve()
	}
	where := func(what string) string { return what + " of " + o.label }
	fields := newGoNamer("Accept", "IdempotencyKey", "Body", "BodyContentType")
	var pathParams, query, headers []goParam
	for _, p := range o.Params {
		pathParams = append(pathParams, g.paramOf(fields.claim(goName(p.Name)), p.Name, p.Schema, p.Doc,
			goPlace{name: o.method + goName(p.Name), where: where("the path parameter " + p.Name)}, false))
	}
	for _, p := range o.Query {
		query = append(query, g.paramOf(fields.claim(goName(p.Name)), p.Name, p.Schema, p.Doc,
			goPlace{name: o.method + goName(p.Name), where: where("the query parameter " + p.Name)}, false))
	}
	for _, p := range o.Headers {
		headers = append(headers, g.paramOf(fields.claim(goName(p.Name)), p.Name, p.Schema, p.Doc,
			goPlace{name: o.method + goName(p.Name), where: where("the header " + p.Name)}, false))
	}
	required := map[string]bool{}
	for _, p := range append(slices.Clone(o.Query), o.Headers...) {
		required[p.Name] = p.Required
	}
	isRequired := func(p goParam) bool { return required[p.name] }
	bodies := g.bodyFields(o)

	var m strings.Builder
	summary := o.label
	if o.Summary != "" {
		summary += ": " + o.Summary
	}
	deprecated := ""
	if o.Deprecated {
		deprecated = "Deprecated: the document marks this operation deprecated."
	}
	idempotency := ""
	if o.IdempotencyRequired {
		idempotency = "When req.IdempotencyKey is empty, it makes one and stores it in req: calling again with " +
			"the same req retries with the same key."
	}
	goWriteDoc(&m, "", o.method+" calls "+summary+".", o.Description, idempotency, deprecated)
	g.imports["context"] = true
	if o.inputs {
		fmt.Fprintf(&m, "func (c *Client) %s(ctx context.Context, req *%s) (*%s, error) {\n", o.method, o.request, o.response)
		fmt.Fprintf(&m, "\tconst op = %q\n\tif req == nil {\n\t\treq = new(%s)\n\t}\n", o.label, o.request)
	} else {
		fmt.Fprintf(&m, "func (c *Client) %s(ctx context.Context) (*%s, error) {\n", o.method, o.response)
		fmt.Fprintf(&m, "\tconst op = %q\n", o.label)
	}
	fmt.Fprintf(&m, "\tpath := %s\n", g.pathExpr(o, pathParams))
	queryArg, headerArg, bodyArg := "nil", "nil", "nil"
	if len(query) > 0 {
		g.imports["net/url"] = true
		queryArg = "query"
		m.WriteString("\tquery := url.Values{}\n")
		g.setParams(&m, "query", "req", query, isRequired)
	}
	if len(headers) > 0 || o.negotiates || o.Idempotency || len(bodies) > 0 {
		headerArg = "header"
		m.WriteString("\theader := http.Header{}\n")
		g.setParams(&m, "header", "req", headers, isRequired)
	}
	if o.negotiates {
		m.WriteString("\tif req.Accept != \"\" {\n\t\theader.Set(\"Accept\", req.Accept)\n\t}\n")
	}
	if o.IdempotencyRequired {
		m.WriteString("\tif req.IdempotencyKey == \"\" {\n\t\tkey, err := newIdempotencyKey()\n\t\tif err != nil {\n" +
			"\t\t\treturn nil, fmt.Errorf(\"%s: %w\", op, err)\n\t\t}\n\t\treq.IdempotencyKey = key\n\t}\n")
		g.imports["fmt"] = true
	}
	if o.Idempotency {
		fmt.Fprintf(&m, "\tif req.IdempotencyKey != \"\" {\n\t\theader.Set(%q, req.IdempotencyKey)\n\t}\n", openapi.IdempotencyHeader)
	}
	if len(bodies) > 0 {
		bodyArg = "body"
		g.bodyCode(&m, o, bodies)
	}
	g.imports["net/http"] = true
	g.imports["fmt"] = true
	fmt.Fprintf(&m, "\tres, err := c.do(ctx, %q, path, %s, %s, %s)\n", o.Method, queryArg, headerArg, bodyArg)
	m.WriteString("\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"%s: %w\", op, err)\n\t}\n")
	fmt.Fprintf(&m, "\tout := &%s{Status: res.StatusCode, Header: res.Header}\n", o.response)
	if o.Idempotency {
		fmt.Fprintf(&m, "\tout.IdempotencyKey = req.IdempotencyKey\n\tout.Replayed = res.Header.Get(%q) == \"true\"\n", "Idempotent-Replayed")
	}
	m.WriteString("\tif err := out.read(op, res); err != nil {\n\t\treturn nil, err\n\t}\n\treturn out, nil\n}\n")
	g.fill(methodSlot, m.String())
	if o.inputs {
		g.fill(requestSlot, g.requestType(o, pathParams, query, headers, bodies, isRequired))
	}
	g.fill(responseSlot, g.responseType(o))
}

// pathExpr returns the expression of the request's path: the template's
// text with each parameter written and escaped.
func (g *goGen) pathExpr(o *goOperation, params []goParam) string {
	var parts []string
	rest := o.OpenAPIPath
	for rest != "" {
		i := strings.IndexByte(rest, '{')
		j := strings.IndexByte(rest, '}')
		if i < 0 || j < i {
			parts = append(parts, strconv.Quote(rest))
			break
		}
		if i > 0 {
			parts = append(parts, strconv.Quote(rest[:i]))
		}
		name := rest[i+1 : j]
		rest = rest[j+1:]
		idx := slices.IndexFunc(params, func(p goParam) bool { return p.name == name })
		if idx < 0 {
			g.fail(fmt.Errorf("%s: the path parameter %s is not declared", o.label, name))
			continue
		}
		p := params[idx]
		v := "req." + p.field
		if p.array {
			g.fail(fmt.Errorf("%s: the path parameter %s is an array; want a scalar", o.label, name))
			continue
		}
		expr := g.format(p, v)
		if p.basic == "string" || p.basic == goTime {
			g.imports["net/url"] = true
			expr = "url.PathEscape(" + expr + ")"
		}
		parts = append(parts, expr)
	}
	if len(parts) == 0 {
		return `""`
	}
	return strings.Join(parts, " + ")
}

// bodyFields types the request body: the field Body for a single media
// type, one field per media type (BodyApplicationJSON, ...) for several.
func (g *goGen) bodyFields(o *goOperation) []goBodyField {
	if o.Body == nil {
		return nil
	}
	var out []goBodyField
	several := len(o.Body.Content) > 1
	fieldNames := newGoNamer("Accept", "IdempotencyKey", "BodyContentType")
	for _, c := range o.Body.Content {
		f := goBodyField{Content: c, field: "Body"}
		typeName := o.method + "Body"
		if several {
			suffix := goName(c.MediaType)
			switch c.Kind() {
			case KindJSON:
				suffix = goMediaName(c.MediaType)
			case KindForm:
				suffix = "Form"
			case KindMulti:
				suffix = "Multipart"
			}
			f.field = fieldNames.claim("Body" + suffix)
			typeName = o.method + f.field
		}
		at := goPlace{name: typeName, where: "the " + c.MediaType + " request body of " + o.label}
		mt := strings.ToLower(c.MediaType)
		f.ranged = strings.HasSuffix(mt, "/*")
		switch c.Kind() {
		case KindJSON:
			f.goType = g.typeOf(c.Schema, at)
			if several || !o.Body.Required {
				f.goType = g.nilable(f.goType)
			}
		case KindForm, KindMulti:
			f.goType = g.formType(c, at)
			if several || !o.Body.Required {
				f.goType = "*" + f.goType
			}
		default:
			g.imports["io"] = true
			f.goType = "io.Reader"
		}
		out = append(out, f)
	}
	return out
}

// formType declares the struct of a form body: a field per property,
// typed as parameters are, and File for multipart file parts.
func (g *goGen) formType(c Content, at goPlace) string {
	s, err := parseGoSchema(c.Schema)
	var known map[string]string // the field types of the named schema the form is
	if err == nil {
		if component, ok := strings.CutPrefix(s.Ref, SchemaRefPrefix); ok {
			if _, ok := g.m.Schemas[component]; ok {
				known = g.fieldTypes[strings.TrimPrefix(g.named(component), "*")]
				s, err = parseGoSchema(g.m.Schemas[component])
			}
		}
	}
	if err != nil {
		g.fail(fmt.Errorf("%s: %w", at.where, err))
		return "struct{}"
	}
	name := g.typeName(at)
	slot := g.reserve()
	var b strings.Builder
	goWriteDoc(&b, "", name+" is "+at.where+": one field per form field.", s.Description)
	fmt.Fprintf(&b, "type %s struct {\n", name)
	fields := newGoNamer()
	var params []goParam
	for _, prop := range slices.Sorted(maps.Keys(s.Properties)) {
		p := g.paramTyped(fields.claim(goName(prop)), prop, s.Properties[prop], "",
			goPlace{name: name + goName(prop), where: "the field " + prop + " of " + name}, c.Kind() == KindMulti, known[prop])
		t := p.goType
		if !slices.Contains(s.Required, prop) && !p.array {
			t = "*" + t
		}
		doc := p.doc
		if p.raw {
			doc = strings.TrimSpace(doc + " Sent as it is written.")
		}
		goWriteDoc(&b, "\t", doc)
		fmt.Fprintf(&b, "\t%s %s\n", p.field, t)
		params = append(params, p)
	}
	b.WriteString("}\n")
	g.fill(slot, b.String())
	g.forms[name] = goFormInfo{params: params, required: s.Required}
	return name
}

// goFormInfo is what bodyCode needs of a form struct.
type goFormInfo struct {
	params   []goParam
	required []string
}

// bodyCode writes the code that encodes the request body into body and
// sets its Content-Type.
func (g *goGen) bodyCode(b *strings.Builder, o *goOperation, bodies []goBodyField) {
	g.imports["io"] = true
	b.WriteString("\tvar body io.Reader\n")
	several := len(bodies) > 1
	if several {
		b.WriteString("\tbodies := 0\n")
	}
	for _, f := range bodies {
		v := "req." + f.field
		optional := strings.HasPrefix(f.goType, "*") || f.goType == "io.Reader" ||
			f.Kind() == KindJSON && (several || !o.Body.Required) && g.nilable(f.goType) == f.goType
		indent := "\t"
		if optional {
			fmt.Fprintf(b, "\tif %s != nil {\n", v)
			indent = "\t\t"
		}
		if several {
			b.WriteString(indent + "bodies++\n")
		}
		ct := strconv.Quote(f.MediaType)
		if f.ranged {
			ct = "req.BodyContentType"
		}
		switch f.Kind() {
		case KindJSON:
			g.imports["encoding/json"] = true
			g.imports["bytes"] = true
			fmt.Fprintf(b, "%sdata, err := json.Marshal(%s)\n%sif err != nil {\n%s\treturn nil, fmt.Errorf(\"%%s: encoding the body: %%w\", op, err)\n%s}\n",
				indent, v, indent, indent, indent)
			fmt.Fprintf(b, "%sbody = bytes.NewReader(data)\n%sheader.Set(\"Content-Type\", %s)\n", indent, indent, ct)
		case KindForm:
			g.imports["net/url"] = true
			g.imports["strings"] = true
			form := g.forms[strings.TrimPrefix(f.goType, "*")]
			fmt.Fprintf(b, "%sform := url.Values{}\n", indent)
			var inner strings.Builder
			g.setParams(&inner, "form", v, form.params, func(p goParam) bool { return slices.Contains(form.required, p.name) })
			b.WriteString(goReindent(inner.String(), indent))
			fmt.Fprintf(b, "%sbody = strings.NewReader(form.Encode())\n%sheader.Set(\"Content-Type\", %s)\n", indent, indent, ct)
		case KindMulti:
			form := g.forms[strings.TrimPrefix(f.goType, "*")]
			fmt.Fprintf(b, "%sparts := newMultipartBody()\n", indent)
			var inner strings.Builder
			for _, p := range form.params {
				fv := v + "." + p.field
				add := func(x string) string {
					if p.basic == "file" {
						return fmt.Sprintf("parts.file(%q, %s)", p.name, x)
					}
					return fmt.Sprintf("parts.field(%q, %s)", p.name, g.format(p, x))
				}
				switch {
				case p.array:
					fmt.Fprintf(&inner, "\tfor _, v := range %s {\n\t\t%s\n\t}\n", fv, add("v"))
				case slices.Contains(form.required, p.name):
					fmt.Fprintf(&inner, "\t%s\n", add(fv))
				default:
					fmt.Fprintf(&inner, "\tif %s != nil {\n\t\t%s\n\t}\n", fv, add("*"+fv))
				}
			}
			b.WriteString(goReindent(inner.String(), indent))
			fmt.Fprintf(b, "%sr, contentType, err := parts.finish()\n%sif err != nil {\n%s\treturn nil, fmt.Errorf(\"%%s: encoding the body: %%w\", op, err)\n%s}\n",
				indent, indent, indent, indent)
			fmt.Fprintf(b, "%sbody = r\n%sheader.Set(\"Content-Type\", contentType)\n", indent, indent)
		default:
			fmt.Fprintf(b, "%sbody = %s\n%sheader.Set(\"Content-Type\", %s)\n", indent, v, indent, ct)
		}
		if optional {
			b.WriteString("\t}\n")
		}
	}
	if several {
		var names []string
		for _, f := range bodies {
			names = append(names, f.field)
		}
		cond := "bodies > 1"
		if o.Body.Required {
			cond = "bodies != 1"
		}
		fmt.Fprintf(b, "\tif %s {\n\t\treturn nil, fmt.Errorf(\"%%s: set one of %s\", op)\n\t}\n", cond, strings.Join(names, ", "))
	}
}

// goReindent moves code written at one tab to indent.
func goReindent(code, indent string) string {
	if indent == "\t" {
		return code
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(code, "\n") {
		if line != "" {
			b.WriteString(indent[1:] + line)
		}
	}
	return b.String()
}

// requestType declares the request struct of an operation.
func (g *goGen) requestType(o *goOperation, path, query, headers []goParam, bodies []goBodyField, required func(goParam) bool) string {
	var b strings.Builder
	goWriteDoc(&b, "", o.request+" is the request of "+o.method+" ("+o.label+").")
	fmt.Fprintf(&b, "type %s struct {\n", o.request)
	field := func(p goParam, in string, req bool) {
		what := fmt.Sprintf("%s is the %s %s", p.field, in, p.name)
		switch {
		case p.array:
			what += ", sent once per element"
		case !req:
			what += ", not sent when nil"
		}
		doc := p.doc
		if p.raw {
			doc = strings.TrimSpace(doc + " Sent as it is written.")
		}
		goWriteDoc(&b, "\t", goSentences(what, doc))
		t := p.goType
		if !req && !p.array {
			t = "*" + t
		}
		fmt.Fprintf(&b, "\t%s %s\n", p.field, t)
	}
	for _, p := range path {
		field(p, "path parameter", true)
	}
	for _, p := range query {
		field(p, "query parameter", required(p))
	}
	for _, p := range headers {
		field(p, "header", required(p))
	}
	if o.negotiates {
		goWriteDoc(&b, "\t", "Accept, when not empty, is sent as the Accept header: the server answers "+
			strings.Join(goSuccessTypes(o.Operation), " or ")+", the first when it is empty.")
		b.WriteString("\tAccept string\n")
	}
	if o.Idempotency {
		doc := "IdempotencyKey is sent as the Idempotency-Key header: a retry with the same key and request " +
			"replays the first answer instead of running again. "
		if o.IdempotencyRequired {
			doc += "The operation requires one: when it is empty, the call makes one and stores it here."
		} else {
			doc += "Not sent when empty."
		}
		goWriteDoc(&b, "\t", doc)
		b.WriteString("\tIdempotencyKey string\n")
	}
	for _, f := range bodies {
		var doc string
		switch f.Kind() {
		case KindJSON:
			doc = "is the body, sent as " + f.MediaType + "."
		case KindForm, KindMulti:
			doc = "is the body, sent as " + f.MediaType + "."
		default:
			doc = "is the body, sent as it reads, as " + f.MediaType + "."
		}
		if f.goType == "io.Reader" || strings.HasPrefix(f.goType, "*") || len(bodies) > 1 || !o.Body.Required {
			doc += " Not sent when nil."
		}
		if len(bodies) > 1 {
			doc += " Set one body field at most."
			if o.Body.Required {
				doc = strings.Replace(doc, "at most", "exactly", 1)
			}
		}
		goWriteDoc(&b, "\t", f.field+" "+doc)
		fmt.Fprintf(&b, "\t%s %s\n", f.field, f.goType)
	}
	if slices.ContainsFunc(bodies, func(f goBodyField) bool { return f.ranged }) {
		goWriteDoc(&b, "\t", "BodyContentType is the Content-Type of a body whose declared media type is a range.")
		b.WriteString("\tBodyContentType string\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// goResponseField is one status field of a response.
type goResponseField struct {
	name   string
	status int
	kind   string   // KindJSON, KindBytes, KindEvents, or "" for a status without a body
	goType string   // for JSON: the decoded type; for events: the event's data type
	media  []string // declared media types, lower case, without parameters
	doc    string
}

// responseFields lists the status fields of an operation's response, in
// status order; a status's JSON media types with one Go type share a
// field, as do its media (bytes) types.
func (g *goGen) responseFields(o *goOperation) []goResponseField {
	if fs, ok := g.respFields[o.Operation]; ok {
		return fs
	}
	var out []goResponseField
	for _, r := range o.Responses {
		name := goStatusName(r.Status)
		if len(r.Content) == 0 {
			out = append(out, goResponseField{name: name, status: r.Status, doc: r.Description})
			continue
		}
		var fs []goResponseField
		for _, c := range r.Content {
			mt := strings.ToLower(strings.TrimSpace(strings.SplitN(c.MediaType, ";", 2)[0]))
			kind := c.Kind()
			if kind == KindForm || kind == KindMulti {
				kind = KindBytes
			}
			var t string
			at := goPlace{name: o.method + name, where: fmt.Sprintf("the %d answer of %s", r.Status, o.label)}
			if len(r.Content) > 1 {
				at = goPlace{name: o.method + name + goMediaName(mt), where: fmt.Sprintf("the %d %s answer of %s", r.Status, mt, o.label)}
			}
			switch kind {
			case KindJSON:
				t = g.typeOf(c.Schema, at)
			case KindEvents:
				t = "string"
				if len(c.Schema) > 0 {
					t = g.typeOf(c.Schema, at.sub("Event", "the data of an event of "+at.where))
				}
			}
			i := slices.IndexFunc(fs, func(f goResponseField) bool { return f.kind == kind && f.goType == t })
			if i < 0 {
				fs = append(fs, goResponseField{status: r.Status, kind: kind, goType: t, doc: r.Description})
				i = len(fs) - 1
			}
			fs[i].media = append(fs[i].media, mt)
		}
		for i := range fs {
			fs[i].name = name
			if len(fs) > 1 {
				if len(fs[i].media) == 1 {
					fs[i].name += goMediaName(fs[i].media[0])
				} else {
					fs[i].name += map[string]string{KindJSON: "JSON", KindBytes: "Body", KindEvents: "Events"}[fs[i].kind]
				}
			}
		}
		out = append(out, fs...)
	}
	names := newGoNamer("Status", "Header", "IdempotencyKey", "Replayed")
	for i := range out {
		out[i].name = names.claim(out[i].name)
	}
	g.respFields[o.Operation] = out
	return out
}

// fieldType is the Go type of a response field.
func (f goResponseField) fieldType() string {
	switch f.kind {
	case KindJSON:
		if strings.HasPrefix(f.goType, "*") {
			return f.goType
		}
		return "*" + f.goType
	case KindBytes:
		return "io.ReadCloser"
	case KindEvents:
		return "*EventStream[" + f.goType + "]"
	}
	return "bool"
}

// responseType declares the response struct of an operation and its read
// method, which fills the status field from an answer.
func (g *goGen) responseType(o *goOperation) string {
	fields := g.responseFields(o)
	var b strings.Builder
	goWriteDoc(&b, "", o.response+" is the answer of "+o.method+" ("+o.label+"). Exactly one of its status fields is "+
		"set: the one for Status.")
	fmt.Fprintf(&b, "type %s struct {\n", o.response)
	b.WriteString("\t// Status is the answer's HTTP status.\n\tStatus int\n")
	b.WriteString("\t// Header holds the answer's header fields.\n\tHeader http.Header\n")
	if o.Idempotency {
		goWriteDoc(&b, "\t", "IdempotencyKey is the Idempotency-Key the request was sent with, empty when none: "+
			"send it again to retry.")
		b.WriteString("\tIdempotencyKey string\n")
		goWriteDoc(&b, "\t", "Replayed reports whether the answer is a replay of the first answer to this key "+
			"(Idempotent-Replayed: true).")
		b.WriteString("\tReplayed bool\n")
	}
	streams := false
	for _, f := range fields {
		what := fmt.Sprintf("%s is set when the status is %d", f.name, f.status)
		if len(f.media) > 0 && len(fields) > 1 && slices.ContainsFunc(fields, func(o goResponseField) bool { return o.status == f.status && o.name != f.name }) {
			what += " and the Content-Type " + strings.Join(f.media, " or ")
		}
		var note string
		switch f.kind {
		case KindBytes:
			g.imports["io"] = true
			note = "It is the body as it streams (" + strings.Join(f.media, ", ") + "): close it."
			streams = true
		case KindEvents:
			note = "It gives the events as they arrive: close it."
			streams = true
		case "":
			note = "The answer has no body."
		}
		if doc := strings.TrimSuffix(strings.TrimSpace(f.doc), "."); doc != "" {
			what += " (" + doc + ")"
		}
		goWriteDoc(&b, "\t", goSentences(what, note))
		fmt.Fprintf(&b, "\t%s %s\n", f.name, f.fieldType())
	}
	b.WriteString("}\n")

	// read
	fmt.Fprintf(&b, "\n// read sets the status field for res, closing its body unless the field streams it.\n")
	fmt.Fprintf(&b, "func (r *%s) read(op string, res *http.Response) error {\n\tswitch res.StatusCode {\n", o.response)
	byStatus := map[int][]goResponseField{}
	var statuses []int
	for _, f := range fields {
		if _, ok := byStatus[f.status]; !ok {
			statuses = append(statuses, f.status)
		}
		byStatus[f.status] = append(byStatus[f.status], f)
	}
	for _, status := range statuses {
		fs := byStatus[status]
		fmt.Fprintf(&b, "\tcase %d:\n", status)
		if len(fs) == 1 {
			b.WriteString(goReindent(g.readField(fs[0]), "\t\t"))
			continue
		}
		g.uses["media"] = true
		b.WriteString("\t\tswitch mt := mediaType(res); {\n")
		var any *goResponseField
		// exact types first, then ranges, then */*
		for _, exact := range []bool{true, false} {
			for i, f := range fs {
				var conds []string
				for _, mt := range f.media {
					switch {
					case mt == "*/*":
						any = &fs[i]
					case strings.HasSuffix(mt, "/*") && !exact:
						g.imports["strings"] = true
						conds = append(conds, fmt.Sprintf("strings.HasPrefix(mt, %q)", strings.TrimSuffix(mt, "*")))
					case !strings.HasSuffix(mt, "/*") && exact:
						conds = append(conds, fmt.Sprintf("mt == %q", mt))
					}
				}
				if len(conds) > 0 {
					fmt.Fprintf(&b, "\t\tcase %s:\n", strings.Join(conds, ", "))
					b.WriteString(goReindent(g.readField(f), "\t\t\t"))
				}
			}
		}
		if any != nil {
			b.WriteString("\t\tdefault:\n" + goReindent(g.readField(*any), "\t\t\t") + "\t\t}\n")
		} else {
			b.WriteString("\t\t}\n\t\treturn undeclared(op, res, ErrUndeclaredMediaType)\n")
		}
	}
	b.WriteString("\t}\n\treturn undeclared(op, res, ErrUndeclaredStatus)\n}\n")

	if streams {
		fmt.Fprintf(&b, "\n// Close closes the stream of the answer, if it has one.\nfunc (r *%s) Close() error {\n\tswitch {\n", o.response)
		for _, f := range fields {
			if f.kind == KindBytes || f.kind == KindEvents {
				fmt.Fprintf(&b, "\tcase r.%s != nil:\n\t\treturn r.%s.Close()\n", f.name, f.name)
			}
		}
		b.WriteString("\t}\n\treturn nil\n}\n")
	}
	return b.String()
}

// readField is the code (at one tab) that sets one status field and
// returns.
func (g *goGen) readField(f goResponseField) string {
	switch f.kind {
	case KindJSON:
		return fmt.Sprintf("\tr.%s = new(%s)\n\treturn decodeJSON(op, res, r.%s)\n", f.name, strings.TrimPrefix(f.fieldType(), "*"), f.name)
	case KindBytes:
		return fmt.Sprintf("\tr.%s = res.Body\n\treturn nil\n", f.name)
	case KindEvents:
		decode := "decodeEventJSON[" + f.goType + "]"
		if f.goType == "string" {
			decode = "decodeEventText"
		}
		return fmt.Sprintf("\tr.%s = newEventStream(res.Body, %s)\n\treturn nil\n", f.name, decode)
	}
	return fmt.Sprintf("\tr.%s = true\n\treturn discard(res)\n", f.name)
}
