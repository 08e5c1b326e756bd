//! The search tree: nodes in one vector, each a chance node or a decision
//! of one or more movers, with per-mover statistics for decoupled UCT.
//!
//! A node stands for a history of public events, not for one state: every
//! iteration plays a different world (a resample for the bot's seat), so a
//! mover's legal actions may differ between visits. Each action therefore
//! counts how often it was available, and UCB uses that count in place of
//! the node's visits (information-set MCTS).

use std::collections::BTreeMap;

use tabletop_sdk::{ActionId, PlayerSet};

/// An index into [`Tree::nodes`].
pub(crate) type NodeId = u32;

/// The root's index.
pub(crate) const ROOT: NodeId = 0;

/// What a node is, as first met. A later world that meets something else
/// there (a faulty resample) ends its descent at that node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Created, never visited.
    Fresh,
    /// A chance node.
    Chance,
    /// These seats move (at once when several).
    Decide(PlayerSet),
}

/// One action of one mover at a node.
#[derive(Debug, Clone)]
pub(crate) struct Arm {
    pub(crate) action: ActionId,
    /// Times chosen.
    pub(crate) visits: u32,
    /// Times legal when its mover chose here.
    pub(crate) available: u32,
    /// Sum of the mover's scores over the iterations that chose it.
    pub(crate) total: f64,
}

#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) kind: Kind,
    /// Children by joint action (one id per mover, in seat order) or by
    /// chance outcome (one entry).
    pub(crate) children: BTreeMap<Box<[u64]>, NodeId>,
    /// Per mover, in seat order: its arms, ascending by action.
    pub(crate) arms: Vec<Vec<Arm>>,
}

impl Node {
    fn fresh() -> Node {
        Node {
            kind: Kind::Fresh,
            children: BTreeMap::new(),
            arms: Vec::new(),
        }
    }
}

#[derive(Debug)]
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Node>,
    max_nodes: usize,
}

impl Tree {
    pub(crate) fn new(max_nodes: usize) -> Tree {
        Tree {
            nodes: vec![Node::fresh()],
            max_nodes: max_nodes.max(1),
        }
    }

    pub(crate) fn node(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    /// The child of `parent` under `key`, and whether it was created now.
    /// `None` when it does not exist and the tree is full.
    pub(crate) fn child(&mut self, parent: NodeId, key: &[u64]) -> Option<(NodeId, bool)> {
        if let Some(&id) = self.nodes[parent as usize].children.get(key) {
            return Some((id, false));
        }
        if self.nodes.len() >= self.max_nodes {
            return None;
        }
        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node::fresh());
        self.nodes[parent as usize]
            .children
            .insert(key.to_vec().into_boxed_slice(), id);
        Some((id, true))
    }
}

/// The arm of `action` among `arms` (ascending), added if new.
pub(crate) fn arm_index(arms: &mut Vec<Arm>, action: ActionId) -> usize {
    match arms.binary_search_by_key(&action, |a| a.action) {
        Ok(i) => i,
        Err(i) => {
            arms.insert(
                i,
                Arm {
                    action,
                    visits: 0,
                    available: 0,
                    total: 0.0,
                },
            );
            i
        }
    }
}
