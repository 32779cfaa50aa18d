//! Typed decoding of validated JSON, without derive macros (serde is not
//! available offline): [`FromJson`] reads a Rust value from a [`Json`],
//! with implementations for the primitives, `String`, `Vec<T>`,
//! `Option<T>` and `Json` itself; a struct implements it in a few lines
//! with [`Json::field`] and [`Json::optional_field`]:
//!
//! ```
//! use endpoints::{DecodeError, FromJson, Json};
//!
//! struct Note {
//!     title: String,
//!     tags: Vec<String>,
//!     pinned: Option<bool>,
//! }
//!
//! impl FromJson for Note {
//!     fn from_json(v: &Json) -> Result<Note, DecodeError> {
//!         Ok(Note {
//!             title: v.field("title")?,
//!             tags: v.field("tags")?,
//!             pinned: v.optional_field("pinned")?,
//!         })
//!     }
//! }
//!
//! let note = Note::from_json(&Json::parse(r#"{"title":"Milk","tags":["shop"]}"#).unwrap()).unwrap();
//! assert_eq!((note.title.as_str(), note.tags.len(), note.pinned), ("Milk", 1, None));
//!
//! let err = Note::from_json(&Json::parse(r#"{"title":"Milk","tags":["shop",7]}"#).unwrap()).err().unwrap();
//! assert_eq!(err.to_string(), "/tags/1: expected a string, got 7");
//! ```
//!
//! The host validated the request against the contract before the handler
//! runs, so decoding a body whose schema matches the type does not fail;
//! [`Request::body_as`](crate::Request::body_as) returns the error all the
//! same, for a type and a schema that disagree.

use std::fmt;

use crate::json::Json;

/// Why a [`Json`] is not the value a [`FromJson`] type reads: where (a
/// JSON pointer into the value) and what was expected.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeError {
    /// The JSON pointer of the value that did not decode, e.g. `/tags/1`;
    /// empty for the whole value.
    pub pointer: String,
    /// What was expected and what came, e.g. "expected a string, got 7".
    pub message: String,
}

impl DecodeError {
    /// An error at the decoded value itself: expected `what`, got `got`.
    pub fn expected(what: &str, got: &Json) -> DecodeError {
        let mut shown = got.to_string();
        if shown.len() > 40 {
            let mut end = 40;
            while !shown.is_char_boundary(end) {
                end -= 1;
            }
            shown.truncate(end);
            shown.push('…');
        }
        DecodeError { pointer: String::new(), message: format!("expected {}, got {}", what, shown) }
    }

    /// The error with `token` (a member name or an index) put in front of
    /// its pointer, as the value that held it reports it.
    pub fn within(mut self, token: &str) -> DecodeError {
        let escaped = token.replace('~', "~0").replace('/', "~1");
        self.pointer = format!("/{}{}", escaped, self.pointer);
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.pointer, self.message)
        }
    }
}

impl std::error::Error for DecodeError {}

/// A type read from JSON. Implement it for a struct with [`Json::field`]
/// and [`Json::optional_field`] (see the module's example).
pub trait FromJson: Sized {
    /// Reads the value, or says where and why it cannot.
    fn from_json(v: &Json) -> Result<Self, DecodeError>;

    /// The value an absent member reads as, for
    /// [`Json::field`]: `None` for `Option<T>`, an error for every other
    /// type.
    fn absent() -> Option<Self> {
        None
    }
}

impl Json {
    /// Member `name` of an object, read as `T`. An absent member is an
    /// error unless `T` is an `Option` (then `None`); `null` reads as
    /// `None` for an `Option` too.
    pub fn field<T: FromJson>(&self, name: &str) -> Result<T, DecodeError> {
        if !matches!(self, Json::Object(_)) {
            return Err(DecodeError::expected("an object", self));
        }
        match self.get(name) {
            Some(v) => T::from_json(v).map_err(|e| e.within(name)),
            None => T::absent().ok_or_else(|| DecodeError { pointer: String::new(), message: "is required".to_string() }.within(name)),
        }
    }

    /// Member `name` of an object read as `T`, or `None` when the object
    /// has no such member or it is `null`.
    pub fn optional_field<T: FromJson>(&self, name: &str) -> Result<Option<T>, DecodeError> {
        self.field::<Option<T>>(name)
    }

    /// The value read as `T`: `Json::parse(text)?.decode::<Vec<i64>>()`.
    pub fn decode<T: FromJson>(&self) -> Result<T, DecodeError> {
        T::from_json(self)
    }
}

impl FromJson for Json {
    fn from_json(v: &Json) -> Result<Json, DecodeError> {
        Ok(v.clone())
    }
}

impl FromJson for bool {
    fn from_json(v: &Json) -> Result<bool, DecodeError> {
        v.as_bool().ok_or_else(|| DecodeError::expected("a boolean", v))
    }
}

impl FromJson for String {
    fn from_json(v: &Json) -> Result<String, DecodeError> {
        v.as_str().map(str::to_string).ok_or_else(|| DecodeError::expected("a string", v))
    }
}

impl FromJson for f64 {
    fn from_json(v: &Json) -> Result<f64, DecodeError> {
        v.as_f64().ok_or_else(|| DecodeError::expected("a number", v))
    }
}

impl FromJson for f32 {
    fn from_json(v: &Json) -> Result<f32, DecodeError> {
        match v.as_f64() {
            Some(f) if f.is_finite() && f.abs() <= f32::MAX as f64 => Ok(f as f32),
            _ => Err(DecodeError::expected("a number within the f32 range", v)),
        }
    }
}

/// Implements FromJson for integer types: a JSON number without fraction
/// or exponent within the type's range.
macro_rules! from_json_integer {
    ($($t:ty),*) => {$(
        impl FromJson for $t {
            fn from_json(v: &Json) -> Result<$t, DecodeError> {
                match v {
                    Json::Number(text) => text.parse::<$t>().map_err(|_| {
                        DecodeError::expected(concat!("an integer within the ", stringify!($t), " range"), v)
                    }),
                    _ => Err(DecodeError::expected("an integer", v)),
                }
            }
        }
    )*};
}

from_json_integer!(i8, i16, i32, i64, u8, u16, u32, u64, usize, isize);

impl<T: FromJson> FromJson for Option<T> {
    fn from_json(v: &Json) -> Result<Option<T>, DecodeError> {
        match v {
            Json::Null => Ok(None),
            v => T::from_json(v).map(Some),
        }
    }

    fn absent() -> Option<Option<T>> {
        Some(None)
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(v: &Json) -> Result<Vec<T>, DecodeError> {
        match v.as_array() {
            Some(items) => items.iter().enumerate().map(|(i, item)| T::from_json(item).map_err(|e| e.within(&i.to_string()))).collect(),
            None => Err(DecodeError::expected("an array", v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Json {
        Json::parse(s).unwrap()
    }

    #[test]
    fn primitives() {
        assert_eq!(parse("7").decode::<i64>(), Ok(7));
        assert_eq!(parse("-9223372036854775808").decode::<i64>(), Ok(i64::MIN));
        assert_eq!(parse("true").decode::<bool>(), Ok(true));
        assert_eq!(parse("0.5").decode::<f64>(), Ok(0.5));
        assert_eq!(parse(r#""a""#).decode::<String>(), Ok("a".to_string()));
        assert_eq!(parse("null").decode::<Option<i32>>(), Ok(None));
        assert_eq!(parse("[1,2]").decode::<Vec<u8>>(), Ok(vec![1, 2]));
        assert_eq!(parse(r#"{"a":[1]}"#).decode::<Json>(), Ok(parse(r#"{"a":[1]}"#)));
    }

    #[test]
    fn errors() {
        for (text, got) in [
            ("256", parse("256").decode::<u8>().unwrap_err().to_string()),
            ("1.5", parse("1.5").decode::<i64>().unwrap_err().to_string()),
            ("9223372036854775808", parse("9223372036854775808").decode::<i64>().unwrap_err().to_string()),
            ("-1", parse("-1").decode::<u32>().unwrap_err().to_string()),
            (r#""7""#, parse(r#""7""#).decode::<i64>().unwrap_err().to_string()),
            ("1e39", parse("1e39").decode::<f32>().unwrap_err().to_string()),
        ] {
            assert!(got.starts_with("expected ") && got.ends_with(&format!("got {}", text)), "{}: {}", text, got);
        }
        let v = parse(r#"{"a":{"b~/c":[true,"x"]}}"#);
        let nested: Result<Json, DecodeError> = v.field::<Json>("a");
        let err = nested.unwrap().field::<Vec<bool>>("b~/c").map_err(|e| e.within("a")).unwrap_err();
        assert_eq!(err.to_string(), r#"/a/b~0~1c/1: expected a boolean, got "x""#);
        assert_eq!(v.field::<i64>("missing").unwrap_err().to_string(), "/missing: is required");
        assert_eq!(v.optional_field::<i64>("missing"), Ok(None));
        assert_eq!(parse("[]").field::<i64>("a").unwrap_err().to_string(), "expected an object, got []");
        let long = Json::String("é".repeat(30));
        assert!(String::from_json(&Json::Null).is_err());
        assert!(i64::from_json(&long).unwrap_err().message.ends_with('…'));
    }
}
