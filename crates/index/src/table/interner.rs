//! Interned names: each room, role, ref, tag and plan name is stored once per field and
//! compared as an integer.

use foldhash::HashMap;

use crate::Sym;

/// Interns the names of one field (rooms, roles, refs, tags, plans). Symbol 0 is "".
#[derive(Debug)]
pub struct Interner {
    pub(crate) map: HashMap<Box<str>, Sym>,
    pub(crate) names: Vec<Box<str>>,
}

impl Default for Interner {
    fn default() -> Self {
        let mut i = Interner {
            map: HashMap::default(),
            names: Vec::new(),
        };
        i.intern("");
        i
    }
}

impl Interner {
    /// The symbol of `name`, adding it if new.
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&s) = self.map.get(name) {
            return s;
        }
        let s = self.names.len() as Sym;
        self.names.push(name.into());
        self.map.insert(name.into(), s);
        s
    }
    /// The symbol of `name`, if it was ever interned.
    pub fn get(&self, name: &str) -> Option<Sym> {
        self.map.get(name).copied()
    }
    /// The name of `sym`.
    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym as usize]
    }
    /// Number of symbols (including "").
    pub fn len(&self) -> usize {
        self.names.len()
    }
    /// True if only "" is interned.
    pub fn is_empty(&self) -> bool {
        self.names.len() <= 1
    }
    /// Every non-empty name.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().skip(1).map(|n| &**n)
    }
}
