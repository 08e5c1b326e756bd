//! The index of every path the workspace defines: modules, items, enum
//! variants, and the associated items of types and traits, each under its
//! full path from its crate (`tabletop_core::match_state::Match::submit`),
//! and again under every path a `pub use` re-exports it as.
//!
//! Files are read the way rustc finds them: from each crate's root, through
//! `mod name;` (a `#[path]` attribute included) and inline modules. An
//! `impl` block's methods go to the type its self type names, resolved
//! through the module's own items and `use` declarations, so a method is
//! found under its type's real module, wherever the `impl` block sits.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use syn::{ImplItem, Item, TraitItem, UseTree, Visibility};

/// A full path, one segment per element.
type Segments = Vec<String>;

/// One crate to index: its name as code spells it and its root file.
#[derive(Debug, Clone)]
pub struct CrateRoot {
    pub name: String,
    pub root: PathBuf,
}

/// Everything the workspace defines, by full path.
#[derive(Debug, Default)]
pub struct Index {
    defined: BTreeSet<String>,
    /// Every path of `defined` and each of its tails (`Match::submit` of
    /// `tabletop_core::Match::submit`), so a document may name an item from
    /// any module down.
    tails: BTreeSet<String>,
}

impl Index {
    /// Reads every crate's files; a file that does not parse is an error.
    pub fn build(crates: &[CrateRoot]) -> Result<Index, String> {
        let mut walk = Walk {
            crate_names: crates.iter().map(|c| c.name.clone()).collect(),
            ..Walk::default()
        };
        for krate in crates {
            let file = read(&krate.root)?;
            let dir = krate.root.parent().unwrap_or(Path::new(".")).to_path_buf();
            walk.module(&file.items, std::slice::from_ref(&krate.name), &dir)?;
        }
        walk.place_impls();
        walk.follow_reexports();
        let tails = walk
            .defined
            .iter()
            .flat_map(|path| {
                let segments: Vec<&str> = path.split("::").collect();
                (0..segments.len())
                    .map(|start| segments[start..].join("::"))
                    .collect::<Vec<_>>()
            })
            .collect();
        Ok(Index {
            defined: walk.defined,
            tails,
        })
    }

    /// Whether `path` names an item: a full path, or the tail of one that
    /// starts at a segment (`grpc::status::to_status`, `Match::submit`).
    pub fn resolves(&self, path: &str) -> bool {
        self.tails.contains(path)
    }

    /// How many full paths the workspace defines.
    pub fn len(&self) -> usize {
        self.defined.len()
    }
}

fn read(file: &Path) -> Result<syn::File, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))
}

/// An `impl` block seen in a module, placed once every type is known.
#[derive(Debug)]
struct ImplBlock {
    module: Segments,
    self_type: Segments,
    items: Vec<String>,
}

/// A `use` declaration's one imported name.
#[derive(Debug)]
struct Import {
    module: Segments,
    /// The name it brings in; `None` for a glob.
    name: Option<String>,
    target: Segments,
    reexported: bool,
}

#[derive(Debug, Default)]
struct Walk {
    crate_names: Vec<String>,
    defined: BTreeSet<String>,
    /// Names each module defines (items and child modules).
    names: HashMap<Segments, BTreeSet<String>>,
    imports: Vec<Import>,
    impls: Vec<ImplBlock>,
}

impl Walk {
    /// Indexes one module's items; `dir` is where its child modules' files are.
    fn module(&mut self, items: &[Item], module: &[String], dir: &Path) -> Result<(), String> {
        self.define(module, None);
        for item in items {
            match item {
                Item::Mod(m) => {
                    let child = push(module, &m.ident.to_string());
                    self.define(module, Some(&m.ident.to_string()));
                    if let Some((_, inline)) = &m.content {
                        self.module(inline, &child, &dir.join(m.ident.to_string()))?;
                    } else {
                        let file = module_file(dir, &m.ident.to_string(), &m.attrs)?;
                        let parsed = read(&file)?;
                        let child_dir = child_dir(&file, &m.ident.to_string());
                        self.module(&parsed.items, &child, &child_dir)?;
                    }
                }
                Item::Fn(f) => self.define(module, Some(&f.sig.ident.to_string())),
                Item::Struct(s) => self.define(module, Some(&s.ident.to_string())),
                Item::Union(u) => self.define(module, Some(&u.ident.to_string())),
                Item::Type(t) => self.define(module, Some(&t.ident.to_string())),
                Item::Const(c) => self.define(module, Some(&c.ident.to_string())),
                Item::Static(s) => self.define(module, Some(&s.ident.to_string())),
                Item::Enum(e) => {
                    let name = e.ident.to_string();
                    self.define(module, Some(&name));
                    let enum_path = push(module, &name);
                    for variant in &e.variants {
                        self.define(&enum_path, Some(&variant.ident.to_string()));
                    }
                }
                Item::Trait(t) => {
                    let name = t.ident.to_string();
                    self.define(module, Some(&name));
                    let trait_path = push(module, &name);
                    for item in &t.items {
                        if let Some(ident) = trait_item_name(item) {
                            self.define(&trait_path, Some(&ident));
                        }
                    }
                }
                Item::Macro(m) => {
                    if let Some(ident) = &m.ident {
                        self.define(module, Some(&ident.to_string()));
                        // `#[macro_export]` puts a macro at the crate's root.
                        if m.attrs.iter().any(|a| a.path().is_ident("macro_export")) {
                            self.define(&module[..1], Some(&ident.to_string()));
                        }
                    }
                }
                Item::Impl(i) => {
                    if let syn::Type::Path(ty) = &*i.self_ty {
                        self.impls.push(ImplBlock {
                            module: module.to_vec(),
                            self_type: ty
                                .path
                                .segments
                                .iter()
                                .map(|s| s.ident.to_string())
                                .collect(),
                            items: i.items.iter().filter_map(impl_item_name).collect(),
                        });
                    }
                }
                Item::Use(u) => {
                    let reexported = !matches!(u.vis, Visibility::Inherited);
                    self.collect_use(module, &u.tree, Vec::new(), reexported);
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn define(&mut self, module: &[String], name: Option<&str>) {
        let path = match name {
            Some(name) => {
                self.names
                    .entry(module.to_vec())
                    .or_default()
                    .insert(name.to_string());
                push(module, name)
            }
            None => module.to_vec(),
        };
        self.defined.insert(path.join("::"));
    }

    fn collect_use(
        &mut self,
        module: &[String],
        tree: &UseTree,
        prefix: Segments,
        reexported: bool,
    ) {
        match tree {
            UseTree::Path(p) => self.collect_use(
                module,
                &p.tree,
                push(&prefix, &p.ident.to_string()),
                reexported,
            ),
            UseTree::Name(n) => {
                let name = n.ident.to_string();
                // `use a::b::{self}` imports `b`.
                let (name, target) = if name == "self" {
                    (prefix.last().cloned().unwrap_or_default(), prefix)
                } else {
                    (name.clone(), push(&prefix, &name))
                };
                self.imports.push(Import {
                    module: module.to_vec(),
                    name: Some(name),
                    target,
                    reexported,
                });
            }
            UseTree::Rename(r) => self.imports.push(Import {
                module: module.to_vec(),
                name: Some(r.rename.to_string()),
                target: push(&prefix, &r.ident.to_string()),
                reexported,
            }),
            UseTree::Glob(_) => self.imports.push(Import {
                module: module.to_vec(),
                name: None,
                target: prefix,
                reexported,
            }),
            UseTree::Group(g) => {
                for tree in &g.items {
                    self.collect_use(module, tree, prefix.clone(), reexported);
                }
            }
        }
    }

    /// The full path `segments` means inside `module`, if it is the
    /// workspace's: through `crate`, `self`, `super`, a crate's name, a name
    /// the module defines, or one it imports.
    fn resolve(&self, module: &[String], segments: &[String], depth: usize) -> Option<Segments> {
        let (first, rest) = segments.split_first()?;
        if depth > 16 {
            return None;
        }
        let base: Segments = match first.as_str() {
            "crate" => module[..1].to_vec(),
            "self" => module.to_vec(),
            "super" => {
                let parent = &module[..module.len().saturating_sub(1).max(1)];
                return self.resolve(parent, &prefixed("self", rest), depth + 1);
            }
            "Self" => return None,
            name if self.names.get(module).is_some_and(|n| n.contains(name)) => push(module, name),
            name => {
                let imported = self
                    .imports
                    .iter()
                    .find(|i| i.module.as_slice() == module && i.name.as_deref() == Some(name));
                match imported {
                    Some(import) => self.resolve(module, &import.target, depth + 1)?,
                    None if self.crate_names.iter().any(|c| c == name) => vec![name.to_string()],
                    None => self.through_glob(module, name, depth)?,
                }
            }
        };
        Some(base.into_iter().chain(rest.iter().cloned()).collect())
    }

    /// Where `name`, brought into `module` by a glob import (`use super::*`),
    /// is defined.
    fn through_glob(&self, module: &[String], name: &str, depth: usize) -> Option<Segments> {
        self.imports
            .iter()
            .filter(|i| i.module.as_slice() == module && i.name.is_none())
            .filter_map(|glob| self.resolve(module, &glob.target, depth + 1))
            .find(|source| self.names.get(source).is_some_and(|n| n.contains(name)))
            .map(|source| push(&source, name))
    }

    /// Puts each `impl` block's items under the type it implements.
    fn place_impls(&mut self) {
        let mut placed = Vec::new();
        for block in &self.impls {
            let Some(ty) = self.resolve(&block.module, &block.self_type, 0) else {
                continue;
            };
            for item in &block.items {
                placed.push(push(&ty, item).join("::"));
            }
        }
        self.defined.extend(placed);
    }

    /// Adds every path a re-export makes: `pub use a::Match` in `lib.rs`
    /// makes `krate::Match` and each `krate::Match::method`.
    fn follow_reexports(&mut self) {
        // A re-export of a re-export needs another round; chains are short.
        for _ in 0..4 {
            let mut added = Vec::new();
            for import in self.imports.iter().filter(|i| i.reexported) {
                let Some(target) = self.resolve(&import.module, &import.target, 0) else {
                    continue;
                };
                let target = target.join("::");
                let below = format!("{target}::");
                let alias = match &import.name {
                    Some(name) => push(&import.module, name).join("::"),
                    None => import.module.join("::"),
                };
                for path in self.defined.range(below.clone()..) {
                    let Some(tail) = path.strip_prefix(&below) else {
                        break;
                    };
                    added.push(format!("{alias}::{tail}"));
                }
                if import.name.is_some() && self.defined.contains(&target) {
                    added.push(alias);
                }
            }
            let before = self.defined.len();
            self.defined.extend(added);
            if self.defined.len() == before {
                break;
            }
        }
    }
}

fn push(path: &[String], name: &str) -> Segments {
    let mut path = path.to_vec();
    path.push(name.to_string());
    path
}

fn prefixed(first: &str, rest: &[String]) -> Segments {
    std::iter::once(first.to_string())
        .chain(rest.iter().cloned())
        .collect()
}

fn trait_item_name(item: &TraitItem) -> Option<String> {
    match item {
        TraitItem::Fn(f) => Some(f.sig.ident.to_string()),
        TraitItem::Const(c) => Some(c.ident.to_string()),
        TraitItem::Type(t) => Some(t.ident.to_string()),
        _ => None,
    }
}

fn impl_item_name(item: &ImplItem) -> Option<String> {
    match item {
        ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
        ImplItem::Const(c) => Some(c.ident.to_string()),
        ImplItem::Type(t) => Some(t.ident.to_string()),
        _ => None,
    }
}

/// The file of `mod name;` declared by a module whose children live in `dir`.
fn module_file(dir: &Path, name: &str, attrs: &[syn::Attribute]) -> Result<PathBuf, String> {
    for attr in attrs.iter().filter(|a| a.path().is_ident("path")) {
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            return Ok(dir.join(s.value()));
        }
    }
    [
        dir.join(format!("{name}.rs")),
        dir.join(name).join("mod.rs"),
    ]
    .into_iter()
    .find(|file| file.is_file())
    .ok_or_else(|| format!("no file for `mod {name};` in {}", dir.display()))
}

/// Where the children of a module read from `file` live: beside a `mod.rs`,
/// in a directory named after the module otherwise.
fn child_dir(file: &Path, name: &str) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new("."));
    if file.file_name().is_some_and(|f| f == "mod.rs") {
        parent.to_path_buf()
    } else {
        parent.join(name)
    }
}
