//! Python's `enum` (PYTHON.md §2): which classes of a file are
//! enumerations, and what kind. A class is one when a base is `Enum`,
//! `IntEnum`, `StrEnum`, `Flag` or `IntFlag` of the `enum` module, or an
//! enumeration of the file (one without members, which Python lets a class
//! extend); a `str` or `int` base beside it makes its members strings or
//! integers too (`class Mode(str, Enum)`).

use std::collections::BTreeMap;

use tensorfit_syntax::ast::Enumeration;

/// What the lowering needs to know of an enumeration class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EnumFacts {
    pub kind: Enumeration,
    /// The value `auto()` gives a member.
    pub auto: AutoValue,
}

/// What `enum.auto()` stands for in a class (the `_generate_next_value_`
/// the `enum` module gives it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AutoValue {
    /// One more than the member before it, if that is an integer, or 1
    /// (`Enum`, `IntEnum`).
    NextNumber,
    /// [`AutoValue::NextNumber`] as a string: `class E(str, Enum)` makes
    /// its members' values `str` of what `auto()` gives.
    NextNumberText,
    /// The member's name in lower case (`StrEnum`).
    LowercaseName,
    /// Not followed (`Flag`'s powers of two, a class's own
    /// `_generate_next_value_`).
    Unknown,
}

/// A class as far as telling an enumeration goes.
pub(crate) struct ClassOutline<'a> {
    pub name: &'a str,
    /// Its bases as written (`enum.Enum`, `str`).
    pub bases: &'a [String],
    /// Whether it defines `_generate_next_value_`.
    pub makes_its_values: bool,
}

/// The enumerations among the file's classes, bases first; `resolve`
/// gives the dotted path a base written in the file stands for
/// (`Enum` → `enum.Enum`).
pub(crate) fn find_enumerations(
    classes: &[ClassOutline<'_>],
    resolve: &dyn Fn(&str) -> String,
) -> BTreeMap<String, EnumFacts> {
    let mut found: BTreeMap<String, EnumFacts> = BTreeMap::new();
    loop {
        let before = found.len();
        for class in classes {
            if found.contains_key(class.name) {
                continue;
            }
            if let Some(facts) = enumeration_of(class, resolve, &found) {
                found.insert(class.name.to_owned(), facts);
            }
        }
        if found.len() == before {
            return found;
        }
    }
}

fn enumeration_of(
    class: &ClassOutline<'_>,
    resolve: &dyn Fn(&str) -> String,
    found: &BTreeMap<String, EnumFacts>,
) -> Option<EnumFacts> {
    let mut base_facts = None;
    let mut mixin = None;
    for base in class.bases {
        let facts = |kind, auto| Some(EnumFacts { kind, auto });
        let this = match resolve(base).as_str() {
            "enum.Enum" => facts(Enumeration::Plain, AutoValue::NextNumber),
            "enum.Flag" => facts(Enumeration::Plain, AutoValue::Unknown),
            "enum.IntEnum" => facts(Enumeration::Int, AutoValue::NextNumber),
            "enum.IntFlag" => facts(Enumeration::Int, AutoValue::Unknown),
            "enum.StrEnum" => facts(Enumeration::Str, AutoValue::LowercaseName),
            "str" => {
                mixin = Some(Enumeration::Str);
                None
            }
            "int" => {
                mixin = Some(Enumeration::Int);
                None
            }
            _ => found.get(base).copied(),
        };
        base_facts = base_facts.or(this);
    }
    let mut facts = base_facts?;
    match (facts.kind, mixin) {
        (Enumeration::Plain, Some(Enumeration::Str)) => {
            facts.kind = Enumeration::Str;
            if facts.auto == AutoValue::NextNumber {
                facts.auto = AutoValue::NextNumberText;
            }
        }
        (Enumeration::Plain, Some(Enumeration::Int)) => facts.kind = Enumeration::Int,
        _ => {}
    }
    // A class that defines its own way to make values: not followed.
    if class.makes_its_values {
        facts.auto = AutoValue::Unknown;
    }
    Some(facts)
}
