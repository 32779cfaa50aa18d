//! Contracts declared in Rust: a [`Schema`] builder for JSON Schema 2020-12
//! and a [`Contract`] builder for the contract format of `abi/README.md`
//! §5. The host validates the result at load and reports any problem with
//! the module's file, the JSON pointer and the rule.

use std::time::Duration;

use crate::json::Json;

/// A JSON Schema, built by chaining:
///
/// ```
/// use endpoints::Schema;
/// let user = Schema::object()
///     .property("name", Schema::string().min_length(1))
///     .property("email", Schema::string().format("email"))
///     .optional("nickname", Schema::string())
///     .additional_properties(false);
/// assert_eq!(
///     user.json().to_string(),
///     r#"{"type":"object","properties":{"name":{"type":"string","minLength":1},"email":{"type":"string","format":"email"},"nickname":{"type":"string"}},"required":["name","email"],"additionalProperties":false}"#,
/// );
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Schema(Json);

impl Schema {
    /// A schema of the given JSON type: "integer", "number", "string",
    /// "boolean", "object", "array" or "null".
    pub fn of_type(t: &str) -> Schema {
        Schema(Json::object().set("type", t))
    }

    /// `{"type": "integer"}` with the range of the `i64` that
    /// [`Request::int`](crate::Request::int) and
    /// [`Request::param_i64`](crate::Request::param_i64) return as its
    /// `minimum` and `maximum`, so the host refuses a value beyond it (400)
    /// instead of the handler panicking on it (500).
    /// [`Schema::minimum`] and [`Schema::maximum`] narrow it:
    ///
    /// ```
    /// use endpoints::Schema;
    /// assert_eq!(
    ///     Schema::integer().minimum(1).json().to_string(),
    ///     r#"{"type":"integer","minimum":1,"maximum":9223372036854775807}"#,
    /// );
    /// ```
    pub fn integer() -> Schema {
        Schema::of_type("integer").minimum(i64::MIN).maximum(i64::MAX)
    }

    /// `{"type": "number"}`
    pub fn number() -> Schema {
        Schema::of_type("number")
    }

    /// `{"type": "string"}`
    pub fn string() -> Schema {
        Schema::of_type("string")
    }

    /// `{"type": "boolean"}`
    pub fn boolean() -> Schema {
        Schema::of_type("boolean")
    }

    /// `{"type": "object"}`; add members with [`Schema::property`] and
    /// [`Schema::optional`].
    pub fn object() -> Schema {
        Schema::of_type("object")
    }

    /// `{"type": "array", "items": items}`
    pub fn array(items: Schema) -> Schema {
        Schema::of_type("array").with("items", items.0)
    }

    /// `{"$ref": "#/$defs/<name>"}`: a schema the contract declares with
    /// [`Contract::def`]. Names are app-wide: they become
    /// `components/schemas/<name>` in the OpenAPI document.
    pub fn reference(name: &str) -> Schema {
        Schema(Json::object().set("$ref", format!("#/$defs/{}", name)))
    }

    /// A schema written as JSON, for keywords the builder lacks.
    pub fn raw(json: Json) -> Schema {
        Schema(json)
    }

    /// The schema as JSON.
    pub fn json(&self) -> &Json {
        &self.0
    }

    /// The schema as JSON, taken.
    pub fn into_json(self) -> Json {
        self.0
    }

    /// Sets any keyword.
    pub fn with(self, keyword: &str, value: impl Into<Json>) -> Schema {
        Schema(self.0.set(keyword, value))
    }

    /// `"minimum"`
    pub fn minimum(self, n: i64) -> Schema {
        self.with("minimum", n)
    }

    /// `"maximum"`
    pub fn maximum(self, n: i64) -> Schema {
        self.with("maximum", n)
    }

    /// `"minLength"`
    pub fn min_length(self, n: u32) -> Schema {
        self.with("minLength", n)
    }

    /// `"maxLength"`
    pub fn max_length(self, n: u32) -> Schema {
        self.with("maxLength", n)
    }

    /// `"minItems"`
    pub fn min_items(self, n: u32) -> Schema {
        self.with("minItems", n)
    }

    /// `"maxItems"`
    pub fn max_items(self, n: u32) -> Schema {
        self.with("maxItems", n)
    }

    /// `"format"`, e.g. "email", "date-time", "uuid".
    pub fn format(self, f: &str) -> Schema {
        self.with("format", f)
    }

    /// `"pattern"`: an ECMA-262 regular expression.
    pub fn pattern(self, p: &str) -> Schema {
        self.with("pattern", p)
    }

    /// `"description"`
    pub fn description(self, d: &str) -> Schema {
        self.with("description", d)
    }

    /// Adds a value to `"examples"`: the document shows the first as the
    /// example of every media type the schema describes (a JSON body, a
    /// parameter). Call it again for more; the host checks none of them.
    ///
    /// ```
    /// use endpoints::{Json, Schema};
    /// let name = Schema::string().description("Full name.").example("Ada Lovelace");
    /// let user = Schema::object()
    ///     .description("A user of the service.")
    ///     .property("name", name)
    ///     .example(Json::object().set("name", "Ada Lovelace"));
    /// assert_eq!(
    ///     user.json().to_string(),
    ///     r#"{"type":"object","description":"A user of the service.","properties":{"name":{"type":"string","description":"Full name.","examples":["Ada Lovelace"]}},"required":["name"],"examples":[{"name":"Ada Lovelace"}]}"#,
    /// );
    /// ```
    pub fn example(mut self, v: impl Into<Json>) -> Schema {
        let list = self.0.entry("examples", Json::array());
        if !matches!(list, Json::Array(_)) {
            *list = Json::array();
        }
        list.push(v);
        self
    }

    /// The value may also be `null`: `{"anyOf": [schema, {"type": "null"}]}`,
    /// as the Go SDK's `nullable:"true"` tag makes it. A column that may be
    /// NULL, answered as JSON, needs it (the host checks answers against
    /// their schemas), and so does a member of a body a client may send as
    /// `null`. The description, default, examples and the deprecated,
    /// readOnly and writeOnly flags move to the outer schema, where
    /// documents and generated clients look for them; keywords set after
    /// `nullable` go there too.
    ///
    /// ```
    /// use endpoints::Schema;
    /// assert_eq!(
    ///     Schema::string().max_length(200).description("A nickname, if any.").nullable().json().to_string(),
    ///     r#"{"anyOf":[{"type":"string","maxLength":200},{"type":"null"}],"description":"A nickname, if any."}"#,
    /// );
    /// ```
    pub fn nullable(self) -> Schema {
        const OUTER: [&str; 6] = ["description", "default", "examples", "deprecated", "readOnly", "writeOnly"];
        let (inner, outer): (Vec<_>, Vec<_>) = match self.0 {
            Json::Object(members) => members.into_iter().partition(|(k, _)| !OUTER.contains(&k.as_str())),
            other => return Schema(Json::object().set("anyOf", vec![other, Json::object().set("type", "null")])),
        };
        let mut s = Json::object().set("anyOf", vec![Json::Object(inner), Json::object().set("type", "null")]);
        for (k, v) in outer {
            s.insert(&k, v);
        }
        Schema(s)
    }

    /// `"enum"` of strings.
    pub fn one_of_strings(self, values: &[&str]) -> Schema {
        self.with("enum", values.to_vec())
    }

    /// `"default"`: the host fills it in before the handler runs.
    pub fn default_value(self, v: impl Into<Json>) -> Schema {
        self.with("default", v)
    }

    /// A required member of an object schema.
    pub fn property(mut self, name: &str, s: Schema) -> Schema {
        self.add_member(name, s, true);
        self
    }

    /// A member of an object schema that may be absent.
    pub fn optional(mut self, name: &str, s: Schema) -> Schema {
        self.add_member(name, s, false);
        self
    }

    /// `"additionalProperties": false` refuses members not declared.
    pub fn additional_properties(self, allowed: bool) -> Schema {
        self.with("additionalProperties", allowed)
    }

    fn add_member(&mut self, name: &str, s: Schema, required: bool) {
        self.0.entry("properties", Json::object()).insert(name, s.0);
        if required {
            let list = self.0.entry("required", Json::array());
            if !list.as_array().map_or(false, |names| names.iter().any(|n| n.as_str() == Some(name))) {
                list.push(name);
            }
        }
    }
}

/// A route's contract: what the host validates before the handler runs,
/// what it checks the answer against, and what the OpenAPI document shows.
///
/// ```
/// use endpoints::{Contract, Schema};
/// let c = Contract::new()
///     .summary("Get a user")
///     .tag("users")
///     .param("id", Schema::integer().minimum(1))
///     .response(200, "The user", Some(Schema::reference("User")))
///     .def("User", Schema::object().property("id", Schema::integer()));
/// assert_eq!(c.json()["request"]["params"]["required"][0].as_str(), Some("id"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Contract(Json);

impl Default for Contract {
    fn default() -> Contract {
        Contract::new()
    }
}

impl Contract {
    /// An empty contract: no parameters, no body, no declared responses.
    pub fn new() -> Contract {
        Contract(Json::object())
    }

    /// The contract as JSON.
    pub fn json(&self) -> &Json {
        &self.0
    }

    /// The contract as JSON, taken.
    pub fn into_json(self) -> Json {
        self.0
    }

    /// The operation's one-line summary.
    pub fn summary(self, s: &str) -> Contract {
        Contract(self.0.set("summary", s))
    }

    /// The operation's description (CommonMark).
    pub fn description(self, s: &str) -> Contract {
        Contract(self.0.set("description", s))
    }

    /// Adds a tag, grouping the operation in the document.
    pub fn tag(mut self, t: &str) -> Contract {
        self.0.entry("tags", Json::array()).push(t);
        self
    }

    /// Marks the operation deprecated.
    pub fn deprecated(self) -> Contract {
        Contract(self.0.set("deprecated", true))
    }

    /// A path parameter (always required), e.g. "id" of `/api/users/[id]`.
    pub fn param(self, name: &str, s: Schema) -> Contract {
        self.parameter("params", name, s, true)
    }

    /// A query parameter; optional unless required is true.
    pub fn query(self, name: &str, s: Schema, required: bool) -> Contract {
        self.parameter("query", name, s, required)
    }

    /// A request header (its name in lower case); optional unless required
    /// is true.
    pub fn header(self, name: &str, s: Schema, required: bool) -> Contract {
        self.parameter("headers", &name.to_ascii_lowercase(), s, required)
    }

    /// A JSON request body; a request without one is refused (400).
    pub fn body(mut self, s: Schema) -> Contract {
        self.set_body(Json::object().set("schema", s.0));
        self
    }

    /// A JSON request body that a request may leave out.
    pub fn optional_body(mut self, s: Schema) -> Contract {
        self.set_body(Json::object().set("schema", s.0).set("required", false));
        self
    }

    /// The request body's description in the document (CommonMark),
    /// before or after [`Contract::body`]:
    ///
    /// ```
    /// use endpoints::{Contract, Schema};
    /// let c = Contract::new().body_description("The user to create.").body(Schema::object());
    /// assert_eq!(
    ///     c.json()["request"]["body"].to_string(),
    ///     r#"{"schema":{"type":"object"},"description":"The user to create."}"#,
    /// );
    /// ```
    pub fn body_description(mut self, d: &str) -> Contract {
        self.request().entry("body", Json::object()).insert("description", d);
        self
    }

    /// Declares the body, keeping a description given before.
    fn set_body(&mut self, body: Json) {
        let request = self.request();
        let described = request.get("body").and_then(|b| b.get("description")).cloned();
        request.insert("body", match described {
            Some(d) => body.set("description", d),
            None => body,
        });
    }

    /// A declared JSON answer: the host checks the guest's answer against
    /// the schema (in development, or always, per the app's policy). With
    /// no schema the answer is documented and not checked.
    pub fn response(mut self, status: u16, description: &str, s: Option<Schema>) -> Contract {
        let mut r = Json::object().set("description", description);
        if let Some(s) = s {
            r.insert("schema", s.0);
        }
        self.0.entry("responses", Json::object()).insert(&status.to_string(), r);
        self
    }

    /// A declared media answer (images, CSV, event streams): streamed and
    /// not checked.
    pub fn media(mut self, status: u16, description: &str, types: &[&str]) -> Contract {
        let r = Json::object().set("description", description).set("media", types.to_vec());
        self.0.entry("responses", Json::object()).insert(&status.to_string(), r);
        self
    }

    /// Declares a header of the answer with status, e.g. `Location` on a
    /// 201, for the document (the host does not check it); declares the
    /// status too when [`Contract::response`] or [`Contract::media`] has
    /// not:
    ///
    /// ```
    /// use endpoints::{Contract, Schema};
    /// let c = Contract::new()
    ///     .response(201, "Created", None)
    ///     .response_header(201, "Location", Schema::string().format("uri-reference"));
    /// assert_eq!(
    ///     c.json()["responses"].to_string(),
    ///     r#"{"201":{"description":"Created","headers":{"Location":{"type":"string","format":"uri-reference"}}}}"#,
    /// );
    /// ```
    pub fn response_header(mut self, status: u16, name: &str, s: Schema) -> Contract {
        let r = self.0.entry("responses", Json::object()).entry(&status.to_string(), Json::object());
        r.entry("headers", Json::object()).insert(name, s.0);
        self
    }

    /// A named schema, referenced as [`Schema::reference`]`(name)`.
    pub fn def(mut self, name: &str, s: Schema) -> Contract {
        self.0.entry("$defs", Json::object()).insert(name, s.0);
        self
    }

    /// Requires the security scheme (a name of the document's
    /// `components.securitySchemes`) with scopes; call it again for an
    /// alternative.
    pub fn security(mut self, scheme: &str, scopes: &[&str]) -> Contract {
        self.0.entry("security", Json::array()).push(Json::object().set(scheme, scopes.to_vec()));
        self
    }

    /// Opts the operation out of the app's default security (`"security":
    /// []`).
    pub fn no_security(self) -> Contract {
        Contract(self.0.set("security", Json::array()))
    }

    /// Idempotency-Key support for POST, PATCH, PUT and DELETE; required
    /// makes the header mandatory.
    pub fn idempotent(self, required: bool) -> Contract {
        Contract(self.0.set("idempotency", Json::object().set("required", required)))
    }

    /// The deadline of one call of the operation, in place of the app's
    /// `limits.timeout`; at most its `limits.maxTimeout` (5 minutes by
    /// default), or the module fails its load.
    pub fn timeout(self, d: Duration) -> Contract {
        Contract(self.0.set("timeout", duration(d)))
    }

    /// For an operation that streams its answer (a media response): the
    /// longest the handler may go without writing; each write restarts it.
    pub fn idle_timeout(self, d: Duration) -> Contract {
        Contract(self.0.set("idleTimeout", duration(d)))
    }

    /// Sets any member of the contract, for what the builder lacks.
    pub fn with(self, member: &str, value: impl Into<Json>) -> Contract {
        Contract(self.0.set(member, value))
    }

    fn request(&mut self) -> &mut Json {
        self.0.entry("request", Json::object())
    }

    fn parameter(mut self, part: &str, name: &str, s: Schema, required: bool) -> Contract {
        let obj = self.request().entry(part, Schema::object().0);
        let mut schema = Schema(std::mem::replace(obj, Json::Null));
        schema.add_member(name, s, required);
        *obj = schema.0;
        self
    }
}

/// A duration as the contract writes it, a Go duration string: whole
/// seconds as "30s", whole milliseconds as "1500ms", else nanoseconds.
fn duration(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else if d.subsec_nanos() % 1_000_000 == 0 {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}ns", d.as_nanos())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts() {
        let c = Contract::new()
            .timeout(Duration::from_secs(300))
            .idle_timeout(Duration::from_millis(1500))
            .media(200, "Ticks", &["text/event-stream"]);
        assert_eq!(
            c.json().to_string(),
            r#"{"timeout":"300s","idleTimeout":"1500ms","responses":{"200":{"description":"Ticks","media":["text/event-stream"]}}}"#
        );
        assert_eq!(duration(Duration::from_nanos(1_000_001)), "1000001ns");
    }

    #[test]
    fn nullable() {
        for (name, s, want) in [
            ("a type", Schema::integer().minimum(0).nullable(), r#"{"anyOf":[{"type":"integer","minimum":0,"maximum":9223372036854775807},{"type":"null"}]}"#),
            (
                "annotations move out",
                Schema::string().description("Nickname.").example("Ada").default_value("x").with("deprecated", true).with("readOnly", true).with("writeOnly", false).min_length(1).nullable(),
                r#"{"anyOf":[{"type":"string","minLength":1},{"type":"null"}],"description":"Nickname.","examples":["Ada"],"default":"x","deprecated":true,"readOnly":true,"writeOnly":false}"#,
            ),
            ("keywords after it are outer", Schema::reference("User").nullable().description("The owner."), r##"{"anyOf":[{"$ref":"#/$defs/User"},{"type":"null"}],"description":"The owner."}"##),
            ("a member", Schema::object().optional("nickname", Schema::string().nullable()), r#"{"type":"object","properties":{"nickname":{"anyOf":[{"type":"string"},{"type":"null"}]}}}"#),
            ("a raw schema that is not an object", Schema::raw(Json::Bool(true)).nullable(), r#"{"anyOf":[true,{"type":"null"}]}"#),
        ] {
            assert_eq!(s.json().to_string(), want, "{}", name);
        }
    }

    #[test]
    fn description_and_examples() {
        let s = Schema::integer()
            .minimum(1)
            .description("The user's id.")
            .example(1i64)
            .example(Json::int(2));
        assert_eq!(
            s.json().to_string(),
            r#"{"type":"integer","minimum":1,"maximum":9223372036854775807,"description":"The user's id.","examples":[1,2]}"#
        );
        let c = Contract::new().optional_body(Schema::string()).body_description("Text.");
        assert_eq!(c.json()["request"]["body"].to_string(), r#"{"schema":{"type":"string"},"required":false,"description":"Text."}"#);
        let r = Schema::raw(Json::parse(r#"{"examples":"not an array"}"#).unwrap()).example(true);
        assert_eq!(r.json()["examples"].to_string(), "[true]", "a non-array examples is replaced");
    }

    #[test]
    fn contract_json() {
        let c = Contract::new()
            .summary("Create a user")
            .tag("users")
            .query("dry", Schema::boolean().default_value(false), false)
            .header("X-Trace", Schema::string(), true)
            .body(Schema::object().property("name", Schema::string()))
            .response(201, "Created", Some(Schema::reference("User")))
            .media(200, "A picture", &["image/png"])
            .security("bearer", &["users:write"])
            .idempotent(false)
            .def("User", Schema::object());
        assert_eq!(
            c.json().to_string(),
            concat!(
                r#"{"summary":"Create a user","tags":["users"],"request":{"query":{"type":"object","properties":{"dry":{"type":"boolean","default":false}}},"#,
                r#""headers":{"type":"object","properties":{"x-trace":{"type":"string"}},"required":["x-trace"]},"body":{"schema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}},"#,
                r##""responses":{"201":{"description":"Created","schema":{"$ref":"#/$defs/User"}},"200":{"description":"A picture","media":["image/png"]}},"##,
                r#""security":[{"bearer":["users:write"]}],"idempotency":{"required":false},"$defs":{"User":{"type":"object"}}}"#,
            )
        );
    }
}
