//! Python's enumerations in the executor (the front end lowers an
//! `enum.Enum` class to a struct whose class fields are its members): a
//! member read on the class (`Mode.SAME`), looked up by value
//! (`Mode("same")`) or by name (`Mode["SAME"]`), iterated over (`for m in
//! Mode`), and its `value` and `name`.
//!
//! A member whose value equals an earlier member's is an alias of it, the
//! one object (`Q.B is Q.A`), as the `enum` module makes it.

use std::sync::Arc;

use tensorfit_solver::Term;
use tensorfit_syntax::ast::{CompareOp, Enumeration};

use super::comparisons::compare;
use super::Frame;
use crate::shapes::value::{Member, Value};

/// What looking a member up by its value finds.
enum Lookup {
    Found(Arc<Member>),
    Absent,
    /// A member's value may or may not equal it.
    Undecided,
}

impl Frame<'_, '_> {
    /// The kind of enumeration `class` is, if it is one.
    pub(super) fn enumeration(&self, class: &str) -> Option<Enumeration> {
        let (def, _) = self.analysis.program.struct_def(class)?;
        def.enumeration
    }

    /// Each name the class body assigns, in order, with the member it
    /// names: its own, or the earlier one it is an alias of. `None` where a
    /// value is not known well enough to tell an alias from a member.
    fn enum_table(&mut self, class: &str) -> Option<Vec<(String, Arc<Member>)>> {
        let kind = self.enumeration(class)?;
        let (def, _) = self.analysis.program.struct_def(class)?;
        let fields = def.class_fields.clone();
        let mut table: Vec<(String, Arc<Member>)> = Vec::new();
        for field in &fields {
            let value = self.default_value(&field.value);
            let member = match self.member_of_value(table.iter().map(|(_, m)| m), &value) {
                Lookup::Found(earlier) => earlier,
                Lookup::Undecided => return None,
                Lookup::Absent => Member::new(class, &field.name.text, value, kind),
            };
            table.push((field.name.text.clone(), member));
        }
        Some(table)
    }

    /// The members of the enumeration `class` in definition order, aliases
    /// left out.
    pub(super) fn enum_members(&mut self, class: &str) -> Option<Vec<Arc<Member>>> {
        let table = self.enum_table(class)?;
        Some(
            table
                .into_iter()
                .filter(|(name, member)| *name == member.name)
                .map(|(_, member)| member)
                .collect(),
        )
    }

    /// `Class.NAME`: the member, or the member it is an alias of.
    pub(super) fn enum_member(&mut self, class: &str, name: &str) -> Value {
        let table = self.enum_table(class).unwrap_or_default();
        match table.into_iter().find(|(own, _)| own == name) {
            Some((_, member)) => Value::Member(member),
            None => Value::Unknown,
        }
    }

    /// `Class(value)`: the member holding `value` (a member of the class
    /// is itself). Python raises `ValueError` where none holds it: unknown
    /// here, as a value undecided is.
    pub(super) fn enum_by_value(&mut self, class: &str, value: &Value) -> Value {
        if let Value::Member(member) = value {
            if member.class == class {
                return value.clone();
            }
        }
        let Some(members) = self.enum_members(class) else {
            return Value::Unknown;
        };
        match self.member_of_value(members.iter(), value) {
            Lookup::Found(member) => Value::Member(member),
            // Python's `ValueError`, or a value that may be any member.
            Lookup::Absent | Lookup::Undecided => Value::Unknown,
        }
    }

    /// `Class["NAME"]`.
    pub(super) fn enum_by_name(&mut self, class: &str, key: &Value) -> Value {
        match key {
            Value::Str(name) => self.enum_member(class, name),
            _ => Value::Unknown,
        }
    }

    /// The first of `members` whose value equals `value`, where every one
    /// before it certainly does not.
    fn member_of_value<'m>(
        &self,
        members: impl Iterator<Item = &'m Arc<Member>>,
        value: &Value,
    ) -> Lookup {
        for member in members {
            match compare(CompareOp::Eq, &member.value, value).and_then(|f| f.as_const()) {
                Some(true) => return Lookup::Found(member.clone()),
                Some(false) => continue,
                None => return Lookup::Undecided,
            }
        }
        Lookup::Absent
    }

    /// `len(Class)` and `Class[i]` as the front end writes `for m in
    /// Class` (a loop over the positions): the members in order. (Python's
    /// own `Class[0]` is a `KeyError`, which no program relies on.)
    pub(super) fn enum_length(&mut self, class: &str) -> Value {
        match self.enum_members(class) {
            Some(members) => Value::Int(Term::int(members.len() as i64)),
            None => Value::Unknown,
        }
    }

    pub(super) fn enum_at(&mut self, class: &str, position: &Term) -> Value {
        let (Some(members), Some(k)) = (self.enum_members(class), position.as_const()) else {
            return Value::Unknown;
        };
        usize::try_from(k)
            .ok()
            .and_then(|k| members.get(k))
            .map_or(Value::Unknown, |m| Value::Member(m.clone()))
    }
}

/// `member.value`, `member.name` (and `_value_`, `_name_`); the `str` or
/// `int` methods of a mixed-in member are not followed.
pub(super) fn member_attribute(member: &Member, name: &str) -> Value {
    match name {
        "value" | "_value_" => member.value.clone(),
        "name" | "_name_" => Value::Str(member.name.clone()),
        _ => Value::Unknown,
    }
}

/// The text `str()` gives a member where it is certain: `Mode.SAME` of a
/// plain member. (A mixed-in member's `str` and `format` changed between
/// Python versions: not known.)
pub(super) fn member_text(member: &Member) -> Option<String> {
    match member.kind {
        Enumeration::Plain => Some(format!("{}.{}", member.class, member.name)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(class: &str, name: &str, value: Value, kind: Enumeration) -> Value {
        Value::Member(Member::new(class, name, value, kind))
    }

    fn int(k: i64) -> Value {
        Value::Int(Term::int(k))
    }

    #[test]
    fn a_plain_members_text_is_its_qualified_name() {
        let Value::Member(relu) = member("Act", "RELU", int(1), Enumeration::Plain) else {
            unreachable!()
        };
        assert_eq!(member_text(&relu).as_deref(), Some("Act.RELU"));
        assert_eq!(
            member_attribute(&relu, "name"),
            Value::Str("RELU".to_owned())
        );
        assert_eq!(member_attribute(&relu, "value"), int(1));
        let Value::Member(mixed) =
            member("Mode", "SAME", Value::Str("same".into()), Enumeration::Str)
        else {
            unreachable!()
        };
        assert_eq!(member_text(&mixed), None);
    }
}
