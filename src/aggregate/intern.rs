//! String interning: dimension values (tenants, routes, instances) are
//! stored once and referred to by a small id in every bucket.

use rustc_hash::FxHashMap;

#[derive(Debug, Default, Clone)]
pub struct Interner {
    names: Vec<String>,
    ids: FxHashMap<String, u32>,
}

impl Interner {
    pub fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }

    pub fn get(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", String::as_str)
    }
}
