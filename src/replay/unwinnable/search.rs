//! Replay stage, unwinnability by search: a helpmate hunt that walks the
//! loser's king into a corner and the winner's units after it (most
//! winnable positions fall to it in a few thousand nodes), and an
//! exhaustive walk over every reachable position, the proof of last resort
//! for positions small enough to enumerate.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Bitboard, Chess, Color, EnPassantMode, Move, Position, Role, Square};

use super::blocked::is_dead_for;
use super::{Verdict, mated_by};

/// Zobrist keys are uniformly random already: hashing them again (SipHash,
/// the default) only costs time, a good part of each node's.
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A map keyed by Zobrist keys.
type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The key of `next`, reached from `pos` (key `pos_key`) by the legal move
/// `m`: updated incrementally where shakmaty can, in full otherwise.
fn child_key(pos: &Chess, pos_key: u64, m: Move, next: &Chess) -> u64 {
    pos.update_zobrist_hash(Zobrist64(pos_key), m, EnPassantMode::Legal)
        .map_or_else(|| key(next), |z| z.0)
}

/// Once `winner` has too little material and no pawn is left on the board,
/// nothing can give it more: no mate lies past this position.
fn hopeless(pos: &Chess, winner: Color) -> bool {
    pos.board().pawns().is_empty() && pos.has_insufficient_material(winner)
}

/// A move after which the static analysis may say something new: pawns
/// and captures change the walls and the material, other moves keep every
/// unit inside the region it could already reach.
fn irreversible(m: Move) -> bool {
    m.is_capture() || m.role() == Role::Pawn
}

/// Moves deeper than this are never searched, whatever the rewards.
const MAX_PLIES: usize = 240;
/// Past this many plies, progress no longer earns free plies.
const REWARD_PLIES: usize = 160;
/// Nodes one deepening iteration may spend before the next, deeper one
/// starts afresh: a long line is better found by a deeper iteration than
/// by exhausting a shallow one. Measured on CHA's hard vectors at 700,000
/// nodes per side: 5,000 leaves 31 of them undetermined, 10,000 30, 25,000
/// 27, 50,000 25, 100,000 27.
const ITERATION_NODES: u64 = 50_000;

/// How a move bears on the mate the search is steering toward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// Toward the mate: searched first, and free of depth.
    Progress,
    Neutral,
    /// Away from it (the loser capturing, promoting needlessly): searched
    /// last, and three plies of depth.
    Setback,
}

/// Where the mate is steered: a corner on the loser's side of the board,
/// of the colour the winner's bishops need.
struct Targets {
    /// The corner the loser's king heads to.
    corner: Square,
    /// Beside the corner, where a loser's unit blocks the king in.
    blocker: Square,
    /// Two squares out, where the winner's king takes away the escape.
    guard: Square,
}

impl Targets {
    fn new(pos: &Chess, winner: Color) -> Targets {
        let board = pos.board();
        let winner_bishops = board.bishops() & board.by_color(winner);
        let loser_bishops = board.bishops() & board.by_color(!winner);
        let dark = winner_bishops.intersects(Bitboard::DARK_SQUARES)
            || (winner_bishops.is_empty() && loser_bishops.intersects(Bitboard::LIGHT_SQUARES));
        // With White winning: h8 is dark, a8 light.
        let (corner, blocker, guard) = if dark {
            (Square::H8, Square::G8, Square::H6)
        } else {
            (Square::A8, Square::B8, Square::A6)
        };
        let orient = |sq: Square| match winner {
            Color::White => sq,
            Color::Black => sq.flip_vertical().flip_horizontal(),
        };
        Targets {
            corner: orient(corner),
            blocker: orient(blocker),
            guard: orient(guard),
        }
    }
}

/// The winner's material cannot mate by itself (a lone knight, bishops of
/// one colour) unless the loser promotes into a blocker.
fn needs_loser_promotion(pos: &Chess, winner: Color) -> bool {
    let board = pos.board();
    let ours = board.by_color(winner) & !board.kings();
    let theirs = board.by_color(!winner) & !board.kings();
    let lone_knight = ours.count() == 1
        && (ours & board.knights()).any()
        && (theirs & !board.pawns() & !board.queens()).is_empty();
    let our_bishops = ours & board.bishops();
    let colour = if our_bishops.intersects(Bitboard::DARK_SQUARES) {
        Bitboard::DARK_SQUARES
    } else {
        Bitboard::LIGHT_SQUARES
    };
    let one_coloured_bishops = our_bishops.any()
        && ours == our_bishops
        && (board.bishops() & !colour).is_empty()
        && (theirs & board.knights()).is_empty();
    lone_knight || one_coloured_bishops
}

/// Deepening depth-first search for a helpmate, the moves that make
/// progress toward a corner mate first and free of depth.
pub(super) struct Helpmate {
    winner: Color,
    targets: Targets,
    /// Nodes left in the whole search, and in this iteration.
    left: u64,
    iteration_left: u64,
    /// Positions already searched, with the depth they had left.
    seen: KeyMap<u32>,
    line: Vec<Move>,
}

impl Helpmate {
    pub(super) fn new(pos: &Chess, winner: Color, nodes: u64) -> Helpmate {
        Helpmate {
            winner,
            targets: Targets::new(pos, winner),
            left: nodes,
            iteration_left: 0,
            seen: KeyMap::default(),
            line: Vec::new(),
        }
    }

    /// Nodes not spent.
    pub(super) fn left(&self) -> u64 {
        self.left
    }

    pub(super) fn search(&mut self, pos: &Chess) -> Option<Vec<Move>> {
        let mut max_depth = 2;
        while self.left > 0 && (max_depth as usize) < MAX_PLIES {
            self.iteration_left = ITERATION_NODES;
            self.line.clear();
            if self.dive(pos, key(pos), 0, max_depth, false) {
                return Some(std::mem::take(&mut self.line));
            }
            max_depth += 1;
        }
        None
    }

    /// A helpmate from `pos` (left in `line`), `depth` of `max_depth` spent;
    /// `after_progress`: the previous move made progress, so this one is free.
    fn dive(
        &mut self,
        pos: &Chess,
        pos_key: u64,
        depth: u32,
        max_depth: u32,
        after_progress: bool,
    ) -> bool {
        if self.left == 0 || self.iteration_left == 0 {
            return false;
        }
        self.left -= 1;
        self.iteration_left -= 1;
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return pos.is_check() && pos.turn() != self.winner;
        }
        if depth >= max_depth || self.line.len() >= MAX_PLIES || self.pruned(pos) {
            return false;
        }
        let moves_left = max_depth - depth;
        match self.seen.entry(pos_key) {
            Entry::Occupied(mut seen) => {
                if *seen.get() >= moves_left {
                    return false;
                }
                seen.insert(moves_left);
            }
            Entry::Vacant(slot) => {
                slot.insert(moves_left);
            }
        }
        let needs_promotion = needs_loser_promotion(pos, self.winner);
        let mut ranked: Vec<(Kind, Move)> = moves
            .into_iter()
            .map(|m| (self.kind(pos, m, needs_promotion), m))
            .collect();
        ranked.sort_by_key(|&(kind, _)| kind);
        let rewarding = self.line.len() < REWARD_PLIES;
        for (kind, m) in ranked {
            let cost = match kind {
                Kind::Progress if rewarding => 0,
                Kind::Setback => 3,
                _ if after_progress && rewarding => 0,
                _ => 1,
            };
            let mut next = pos.clone();
            next.play_unchecked(m);
            if irreversible(m) && self.statically_dead(&next) {
                continue;
            }
            self.line.push(m);
            let progress = kind == Kind::Progress && rewarding;
            let next_key = child_key(pos, pos_key, m, &next);
            if self.dive(
                &next,
                next_key,
                (depth + cost).min(max_depth),
                max_depth,
                progress,
            ) {
                return true;
            }
            self.line.pop();
        }
        false
    }

    /// Positions no mate lies beyond, or (the loser with nothing left to
    /// promote when the winner needs a promoted blocker) none worth looking
    /// for.
    fn pruned(&self, pos: &Chess) -> bool {
        let board = pos.board();
        let loser_pawns = board.pawns() & board.by_color(!self.winner);
        (board.by_color(self.winner) & !board.kings()).is_empty()
            || hopeless(pos, self.winner)
            || (loser_pawns.is_empty() && needs_loser_promotion(pos, self.winner))
    }

    fn statically_dead(&self, pos: &Chess) -> bool {
        is_dead_for(pos, self.winner)
    }

    /// The winner pushes advanced pawns, captures and brings its king and
    /// knights toward the corner; the loser walks its king into the corner,
    /// brings blockers beside it, promotes into blockers when the winner
    /// needs one, and keeps the winner's units on the board.
    fn kind(&self, pos: &Chess, m: Move, needs_promotion: bool) -> Kind {
        let role = m.role();
        if pos.turn() == self.winner {
            let target = if role == Role::King {
                self.targets.guard
            } else {
                self.targets.corner
            };
            let advanced = role == Role::Pawn
                && self.winner.relative_rank(m.to().rank()) >= shakmaty::Rank::Fifth;
            if advanced || m.is_capture() || approaches(m, role, target) {
                Kind::Progress
            } else {
                Kind::Neutral
            }
        } else {
            let target = if role == Role::King {
                self.targets.corner
            } else {
                self.targets.blocker
            };
            let mut kind = Kind::Neutral;
            if needs_promotion {
                let heavy = matches!(m.promotion(), Some(Role::Queen | Role::Rook));
                kind = if role == Role::Pawn && !heavy {
                    Kind::Progress
                } else {
                    Kind::Setback
                };
            }
            // Bishops too: they are the blockers beside the corner a
            // bishop's mate needs.
            let bishop_closer = role == Role::Bishop
                && m.from()
                    .is_some_and(|from| m.to().distance(target) < from.distance(target));
            if approaches(m, role, target) || bishop_closer {
                Kind::Progress
            } else if m.is_capture() {
                Kind::Setback
            } else {
                kind
            }
        }
    }
}

/// A king or knight move that brings the piece closer to `target`.
fn approaches(m: Move, role: Role, target: Square) -> bool {
    let Some(from) = m.from() else {
        return false;
    };
    match role {
        Role::King => m.to().distance(target) < from.distance(target),
        Role::Knight => knight_distance(m.to(), target) < knight_distance(from, target),
        _ => false,
    }
}

/// Knight moves between two squares on an empty board (at most six).
fn knight_distance(a: Square, b: Square) -> u32 {
    let mut reached = Bitboard::from_square(a);
    let mut moves = 0;
    while !reached.contains(b) && moves < 6 {
        reached = reached.into_iter().fold(reached, |acc, sq| {
            acc | shakmaty::attacks::knight_attacks(sq)
        });
        moves += 1;
    }
    moves
}

/// Every position reachable from `pos`, breadth first: a mate by `winner`
/// gives its line (the shortest), none at all proves the position
/// unwinnable for `winner`. Positions the static analysis proves dead are
/// not expanded (nothing past them can be a mate).
pub(super) fn exhaustive(pos: &Chess, winner: Color, nodes: u64) -> Verdict {
    // Each position's parent and the move from it; the root has none.
    let mut parents: KeyMap<Option<(u64, Move)>> = KeyMap::default();
    let mut queue = VecDeque::new();
    let root = key(pos);
    parents.insert(root, None);
    queue.push_back((pos.clone(), root));
    let mut left = nodes;
    while let Some((current, current_key)) = queue.pop_front() {
        let Some(rest) = left.checked_sub(1) else {
            return Verdict::Undetermined;
        };
        left = rest;
        for m in current.legal_moves() {
            let mut next = current.clone();
            next.play_unchecked(m);
            let next_key = child_key(&current, current_key, m, &next);
            let Entry::Vacant(slot) = parents.entry(next_key) else {
                continue;
            };
            slot.insert(Some((current_key, m)));
            if mated_by(&next, winner) {
                return Verdict::Winnable(line_to(&parents, next_key));
            }
            let dead = hopeless(&next, winner) || (irreversible(m) && is_dead_for(&next, winner));
            if !dead {
                queue.push_back((next, next_key));
            }
        }
    }
    Verdict::Unwinnable
}

/// The moves from the root to the position `key`.
fn line_to(parents: &KeyMap<Option<(u64, Move)>>, mut key: u64) -> Vec<Move> {
    let mut line = Vec::new();
    while let Some(Some((parent, m))) = parents.get(&key) {
        line.push(*m);
        key = *parent;
    }
    line.reverse();
    line
}
