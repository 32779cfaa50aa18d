//! JSON values: what the host hands a handler (validated request values, the
//! envelope) and what a handler answers with.

use std::fmt;
use std::ops::Index;
use std::str::FromStr;

/// A JSON value. Objects keep their members in insertion order; numbers
/// keep the text they were parsed from, so an `i64` or `u64` larger than
/// 2^53 survives a round trip.
///
/// Build values with [`Json::object`] and [`Json::set`], `From`
/// conversions and `vec!`:
///
/// ```
/// use endpoints::Json;
/// let user = Json::object()
///     .set("id", 7)
///     .set("name", "Ada")
///     .set("tags", vec!["admin", "ops"]);
/// assert_eq!(user.to_string(), r#"{"id":7,"name":"Ada","tags":["admin","ops"]}"#);
/// assert_eq!(user["name"].as_str(), Some("Ada"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number, as its JSON text (e.g. `7`, `-0.5`, `1e3`).
    Number(String),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, its members in order.
    Object(Vec<(String, Json)>),
}

/// What `Index` returns for a missing member or element.
static NULL: Json = Json::Null;

impl Json {
    /// An empty object: `{}`.
    pub fn object() -> Json {
        Json::Object(Vec::new())
    }

    /// An empty array: `[]`.
    pub fn array() -> Json {
        Json::Array(Vec::new())
    }

    /// An integer.
    pub fn int(n: i64) -> Json {
        Json::Number(n.to_string())
    }

    /// A number; NaN and the infinities, which JSON cannot hold, become
    /// `null`.
    pub fn float(f: f64) -> Json {
        if f.is_finite() {
            Json::Number(format!("{}", f))
        } else {
            Json::Null
        }
    }

    /// Parses JSON text (RFC 8259), refusing trailing text and nesting
    /// deeper than 512 levels.
    pub fn parse(text: &str) -> Result<Json, ParseError> {
        let mut p = Parser { b: text.as_bytes(), at: 0, depth: 0 };
        p.skip_space();
        let v = p.value()?;
        p.skip_space();
        if p.at != p.b.len() {
            return Err(p.error("unexpected text after the value"));
        }
        Ok(v)
    }

    /// The object with member key set to v (replacing one of that name):
    /// a builder. On a value that is not an object it does nothing.
    pub fn set(mut self, key: &str, v: impl Into<Json>) -> Json {
        self.insert(key, v);
        self
    }

    /// Sets member key of an object to v, replacing one of that name; on a
    /// value that is not an object it does nothing.
    pub fn insert(&mut self, key: &str, v: impl Into<Json>) {
        if let Json::Object(members) = self {
            let v = v.into();
            match members.iter_mut().find(|(k, _)| k == key) {
                Some(m) => m.1 = v,
                None => members.push((key.to_string(), v)),
            }
        }
    }

    /// Appends v to an array; on a value that is not an array it does
    /// nothing.
    pub fn push(&mut self, v: impl Into<Json>) {
        if let Json::Array(items) = self {
            items.push(v.into());
        }
    }

    /// Member key of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Member key of an object, mutable.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(members) => members.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Member key of an object, set to default first when absent. On a
    /// value that is not an object it replaces the value with `{key:
    /// default}`.
    pub fn entry(&mut self, key: &str, default: Json) -> &mut Json {
        if !matches!(self, Json::Object(_)) {
            *self = Json::object();
        }
        let members = match self {
            Json::Object(members) => members,
            _ => unreachable!(),
        };
        let i = match members.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                members.push((key.to_string(), default));
                members.len() - 1
            }
        };
        &mut members[i].1
    }

    /// The value as an integer: a number without fraction that fits i64.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// The value as a non-negative integer that fits u64.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// The value as a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// The value as a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value as a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The elements of an array.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members of an object, in order.
    pub fn as_object(&self) -> Option<&[(String, Json)]> {
        match self {
            Json::Object(members) => Some(members),
            _ => None,
        }
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }
}

impl Index<&str> for Json {
    type Output = Json;

    /// Member key of an object, or `null` when there is none.
    fn index(&self, key: &str) -> &Json {
        self.get(key).unwrap_or(&NULL)
    }
}

impl Index<usize> for Json {
    type Output = Json;

    /// Element i of an array, or `null` when there is none.
    fn index(&self, i: usize) -> &Json {
        match self {
            Json::Array(items) => items.get(i).unwrap_or(&NULL),
            _ => &NULL,
        }
    }
}

impl fmt::Display for Json {
    /// Writes compact JSON.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => f.write_str(if *b { "true" } else { "false" }),
            Json::Number(text) => f.write_str(text),
            Json::String(s) => write_string(f, s),
            Json::Array(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    v.fmt(f)?;
                }
                f.write_str("]")
            }
            Json::Object(members) => {
                f.write_str("{")?;
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write_string(f, k)?;
                    f.write_str(":")?;
                    v.fmt(f)?;
                }
                f.write_str("}")
            }
        }
    }
}

/// Writes s as a JSON string, with only the escapes JSON requires.
fn write_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("\"")?;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            c if (c as u32) < 0x20 => "",
            _ => continue,
        };
        f.write_str(&s[start..i])?;
        if esc.is_empty() {
            write!(f, "\\u{:04x}", c as u32)?;
        } else {
            f.write_str(esc)?;
        }
        start = i + c.len_utf8();
    }
    f.write_str(&s[start..])?;
    f.write_str("\"")
}

impl FromStr for Json {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Json, ParseError> {
        Json::parse(s)
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}

macro_rules! from_integer {
    ($($t:ty),*) => {$(
        impl From<$t> for Json {
            fn from(n: $t) -> Json {
                Json::Number(n.to_string())
            }
        }
    )*};
}
from_integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl From<f64> for Json {
    fn from(f: f64) -> Json {
        Json::float(f)
    }
}

impl From<&str> for Json {
    fn from(s: &str) -> Json {
        Json::String(s.to_string())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Json {
        Json::String(s)
    }
}

impl From<&String> for Json {
    fn from(s: &String) -> Json {
        Json::String(s.clone())
    }
}

impl<T: Into<Json>> From<Vec<T>> for Json {
    fn from(items: Vec<T>) -> Json {
        Json::Array(items.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Json>> From<Option<T>> for Json {
    /// `None` is `null`.
    fn from(v: Option<T>) -> Json {
        v.map_or(Json::Null, Into::into)
    }
}

/// Why text is not JSON, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The byte offset of the problem.
    pub offset: usize,
    /// What is wrong there.
    pub message: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for ParseError {}

/// The deepest nesting Json::parse accepts: deeper text would overflow the
/// guest's stack.
const MAX_DEPTH: usize = 512;

struct Parser<'a> {
    b: &'a [u8],
    at: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn error(&self, message: &'static str) -> ParseError {
        ParseError { offset: self.at, message }
    }

    fn skip_space(&mut self) {
        while self.at < self.b.len() && matches!(self.b[self.at], b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    fn literal(&mut self, word: &str, v: Json) -> Result<Json, ParseError> {
        if self.b[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(v)
        } else {
            Err(self.error("expected a value"))
        }
    }

    fn value(&mut self) -> Result<Json, ParseError> {
        match self.peek() {
            None => Err(self.error("unexpected end of text")),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::String),
            Some(b'[') => self.nested(Parser::array),
            Some(b'{') => self.nested(Parser::object),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a value")),
        }
    }

    fn nested(&mut self, parse: fn(&mut Parser<'a>) -> Result<Json, ParseError>) -> Result<Json, ParseError> {
        if self.depth == MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.depth += 1;
        let v = parse(self);
        self.depth -= 1;
        v
    }

    fn array(&mut self) -> Result<Json, ParseError> {
        self.at += 1; // [
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_space();
            items.push(self.value()?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected , or ] in an array")),
            }
        }
    }

    fn object(&mut self) -> Result<Json, ParseError> {
        self.at += 1; // {
        let mut members = Vec::new();
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_space();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a member name"));
            }
            let key = self.string()?;
            self.skip_space();
            if self.peek() != Some(b':') {
                return Err(self.error("expected : after a member name"));
            }
            self.at += 1;
            self.skip_space();
            members.push((key, self.value()?));
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(self.error("expected , or } in an object")),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Result<Json, ParseError> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return Err(self.error("expected a digit after ."));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("expected a digit in the exponent"));
            }
        }
        // The bytes are ASCII digits and signs: valid UTF-8.
        Ok(Json::Number(String::from_utf8_lossy(&self.b[start..self.at]).into_owned()))
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let mut n = 0;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return Err(self.error("expected four hexadecimal digits after \\u")),
            };
            n = n * 16 + u32::from(d);
            self.at += 1;
        }
        Ok(n)
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.at += 1; // "
        let mut out = String::new();
        let mut run = self.at;
        loop {
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    out.push_str(self.text(run)?);
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    out.push_str(self.text(run)?);
                    self.at += 1;
                    let c = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.at += 1;
                            let c = self.escaped_char()?;
                            out.push(c);
                            run = self.at;
                            continue;
                        }
                        _ => return Err(self.error("unknown escape")),
                    };
                    out.push(c);
                    self.at += 1;
                    run = self.at;
                }
                Some(c) if c < 0x20 => return Err(self.error("control character in a string")),
                Some(_) => self.at += 1,
            }
        }
    }

    /// The character of a \u escape (after "\u"), joining surrogate pairs.
    fn escaped_char(&mut self) -> Result<char, ParseError> {
        let hi = self.hex4()?;
        let code = if (0xd800..0xdc00).contains(&hi) {
            if !self.b[self.at..].starts_with(b"\\u") {
                return Err(self.error("unpaired surrogate"));
            }
            self.at += 2;
            let lo = self.hex4()?;
            if !(0xdc00..0xe000).contains(&lo) {
                return Err(self.error("unpaired surrogate"));
            }
            0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
        } else {
            hi
        };
        char::from_u32(code).ok_or_else(|| self.error("unpaired surrogate"))
    }

    fn text(&self, from: usize) -> Result<&'a str, ParseError> {
        std::str::from_utf8(&self.b[from..self.at]).map_err(|_| ParseError { offset: from, message: "invalid UTF-8" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for text in [
            r#"{"a":1,"b":[true,false,null],"c":"x\"y\\z\n","d":-0.5e10}"#,
            r#"[]"#,
            r#"{}"#,
            r#""\u0001""#,
            r#"18446744073709551615"#,
        ] {
            assert_eq!(Json::parse(text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn parses_escapes_and_space() {
        let v = Json::parse(" { \"k\" : \"\\u00e9\\ud83d\\ude00\\/\" } ").unwrap();
        assert_eq!(v["k"].as_str(), Some("é😀/"));
    }

    #[test]
    fn refuses_bad_text() {
        for text in ["", "{", "[1,]", "01", "1.", "-", "\"\\x\"", "\"\\ud800\"", "nul", "{} x", "{\"a\" 1}", "\"\u{1}\""] {
            assert!(Json::parse(text).is_err(), "{:?} parsed", text);
        }
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert!(Json::parse(&deep).is_err());
    }

    #[test]
    fn accessors() {
        let v = Json::parse(r#"{"n":9007199254740993,"f":2.5,"s":"x","b":true,"a":[1]}"#).unwrap();
        assert_eq!(v["n"].as_i64(), Some(9007199254740993));
        assert_eq!(v["f"].as_f64(), Some(2.5));
        assert_eq!(v["f"].as_i64(), None);
        assert_eq!(v["b"].as_bool(), Some(true));
        assert_eq!(v["a"][0].as_i64(), Some(1));
        assert!(v["missing"].is_null());
        assert!(v["a"][7].is_null());
    }

    #[test]
    fn builds() {
        let mut v = Json::object().set("a", 1).set("b", "two").set("a", 3);
        v.entry("list", Json::array()).push(Json::float(f64::NAN));
        assert_eq!(v.to_string(), r#"{"a":3,"b":"two","list":[null]}"#);
        assert_eq!(Json::from(Some(1.5)).to_string(), "1.5");
        assert_eq!(Json::from(None::<i32>).to_string(), "null");
    }
}
