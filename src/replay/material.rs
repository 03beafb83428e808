//! Replay stage, material: piece counts through a game, replayed from its
//! captures and promotions, for the material columns, the first endgame
//! position and the material statistics.

use shakmaty::{Bitboard, Board, Color, Move, Role};

/// Values of pawn, knight, bishop, rook and queen (the king counts 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceValues(pub [i32; 5]);

impl Default for PieceValues {
    fn default() -> Self {
        PieceValues([1, 3, 3, 5, 9])
    }
}

impl PieceValues {
    /// `1,3,3,5,9`: pawn, knight, bishop, rook, queen.
    pub fn parse(text: &str) -> Result<PieceValues, String> {
        let values: Vec<i32> = text
            .split(',')
            .map(|v| v.trim().parse::<i32>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("piece values must be five integers P,N,B,R,Q, got {text:?}"))?;
        let values: [i32; 5] = values
            .try_into()
            .map_err(|_| format!("piece values must be five integers P,N,B,R,Q, got {text:?}"))?;
        if values.iter().any(|&v| !(0..=100).contains(&v)) {
            return Err(format!(
                "piece values must be between 0 and 100, got {text:?}"
            ));
        }
        Ok(PieceValues(values))
    }

    fn of(&self, role: Role) -> i32 {
        match role {
            Role::King => 0,
            // Pawn (1) … queen (5): the values in that order.
            role => self.0[role as usize - 1],
        }
    }
}

/// Roles in signature order.
const SIGNATURE_ORDER: [Role; 6] = [
    Role::King,
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

/// Piece counts by color and role.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Material {
    counts: [[u8; 6]; 2],
}

impl Material {
    pub(crate) fn of(board: &Board) -> Material {
        let mut material = Material::default();
        for color in Color::ALL {
            for role in Role::ALL {
                let n = board.by_piece(role.of(color)).count();
                material.set(color, role, u8::try_from(n).unwrap_or(u8::MAX));
            }
        }
        material
    }

    pub(crate) fn count(&self, color: Color, role: Role) -> u8 {
        // Roles count from 1 (pawn) to 6 (king).
        self.counts[color as usize][role as usize - 1]
    }

    fn set(&mut self, color: Color, role: Role, n: u8) {
        if let Some(slot) = self
            .counts
            .get_mut(color as usize)
            .and_then(|c| c.get_mut(role as usize - 1))
        {
            *slot = n;
        }
    }

    /// Adds `n` pieces (a Crazyhouse pocket).
    pub(crate) fn add_pieces(&mut self, color: Color, role: Role, n: u8) {
        let total = self.count(color, role).saturating_add(n);
        self.set(color, role, total);
    }

    fn add(&mut self, color: Color, role: Role, delta: i8) {
        let n = self.count(color, role).saturating_add_signed(delta);
        self.set(color, role, n);
    }

    /// Applies the material change of `m`, played by `mover`.
    pub(super) fn play(&mut self, m: &Move, mover: Color) {
        match *m {
            Move::Normal {
                capture, promotion, ..
            } => {
                if let Some(captured) = capture {
                    self.add(!mover, captured, -1);
                }
                if let Some(promoted) = promotion {
                    self.add(mover, Role::Pawn, -1);
                    self.add(mover, promoted, 1);
                }
            }
            Move::EnPassant { .. } => self.add(!mover, Role::Pawn, -1),
            Move::Castle { .. } | Move::Put { .. } => {}
        }
    }

    pub(crate) fn value(&self, color: Color, values: &PieceValues) -> i32 {
        Role::ALL
            .iter()
            .map(|&role| i32::from(self.count(color, role)) * values.of(role))
            .sum()
    }

    /// White − black.
    pub(crate) fn diff(&self, values: &PieceValues) -> i32 {
        self.value(Color::White, values) - self.value(Color::Black, values)
    }

    fn side_signature(&self, color: Color, out: &mut String) {
        for role in SIGNATURE_ORDER {
            for _ in 0..self.count(color, role) {
                out.push(role.upper_char());
            }
        }
    }

    /// `KQRRBPPPPPvKQRNPPPP`: white first, pieces in KQRBNP order.
    #[cfg(test)]
    pub fn signature(&self) -> String {
        self.signature_of(Color::White)
    }

    /// The signature with `first` written first.
    #[cfg(test)]
    fn signature_of(&self, first: Color) -> String {
        let mut out = String::with_capacity(34);
        self.write_signature(first, &mut out);
        out
    }

    /// Appends the signature with `first` written first.
    pub(crate) fn write_signature(&self, first: Color, out: &mut String) {
        self.side_signature(first, out);
        out.push('v');
        self.side_signature(!first, out);
    }

    /// The stronger side: more material, then the larger count of the most
    /// valuable kind (KQRBNP order); White when the two are equal.
    pub(crate) fn stronger(&self, values: &PieceValues) -> Color {
        let key = |color| {
            let counts = SIGNATURE_ORDER.map(|role| self.count(color, role));
            (self.value(color, values), counts)
        };
        if key(Color::Black) > key(Color::White) {
            Color::Black
        } else {
            Color::White
        }
    }

    /// `KRPvKR`: the stronger side first.
    #[cfg(test)]
    pub(crate) fn normalized_signature(&self, values: &PieceValues) -> String {
        self.signature_of(self.stronger(values))
    }

    /// An endgame: each side has at most two pieces besides its king and
    /// pawns, and a side with a queen has at most one minor piece besides
    /// it (KRRvKRR, KRBvKR, KQvKQ and KQBvKQ are endgames; KQRvKQ, three
    /// pieces, or a middlegame whose queens were traded off, are not).
    pub(crate) fn is_endgame(&self) -> bool {
        Color::ALL.into_iter().all(|color| {
            let queens = self.count(color, Role::Queen);
            let rooks = self.count(color, Role::Rook);
            let minors = self.count(color, Role::Bishop) + self.count(color, Role::Knight);
            let pieces = queens + rooks + minors;
            pieces <= 2 && (queens == 0 || (queens == 1 && rooks == 0))
        })
    }
}

/// The checkpoints of `material_diff_at_*`.
pub(crate) const CHECKPOINTS: [u32; 4] = [20, 40, 60, 80];

/// What a game's material did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MaterialFacts {
    pub final_material: Material,
    pub white: i32,
    pub black: i32,
    pub diff: i32,
    /// The difference after 20, 40, 60 and 80 plies; None when the game
    /// is shorter.
    pub diff_at: [Option<i32>; 4],
    pub max_white_lead: i32,
    pub max_black_lead: i32,
    pub endgame_ply: Option<u32>,
    pub endgame_material: Option<Material>,
    pub bishop_pair_white: bool,
    pub bishop_pair_black: bool,
}

/// The facts of a game's material, noted ply by ply.
struct Walk {
    facts: MaterialFacts,
}

impl Walk {
    fn start(material: &Material, diff: i32) -> Walk {
        let mut walk = Walk {
            facts: MaterialFacts::default(),
        };
        walk.note(0, material, diff);
        walk
    }

    /// The material changed at `ply`.
    fn note(&mut self, ply: u32, material: &Material, diff: i32) {
        let facts = &mut self.facts;
        facts.max_white_lead = facts.max_white_lead.max(diff);
        facts.max_black_lead = facts.max_black_lead.max(-diff);
        if facts.endgame_ply.is_none() && material.is_endgame() {
            facts.endgame_ply = Some(ply);
            facts.endgame_material = Some(*material);
        }
    }

    /// The difference after `ply`, kept at the checkpoints.
    fn checkpoint(&mut self, ply: u32, diff: i32) {
        // Checkpoints are multiples of 20: one test per ply.
        if ply.is_multiple_of(20)
            && let Some(slot) = CHECKPOINTS
                .iter()
                .position(|&c| c == ply)
                .and_then(|i| self.facts.diff_at.get_mut(i))
        {
            *slot = Some(diff);
        }
    }

    fn finish(self, material: Material, last: &Board, values: &PieceValues) -> MaterialFacts {
        let mut facts = self.facts;
        facts.final_material = material;
        facts.white = material.value(Color::White, values);
        facts.black = material.value(Color::Black, values);
        facts.diff = material.diff(values);
        facts.bishop_pair_white = has_bishop_pair(last, Color::White);
        facts.bishop_pair_black = has_bishop_pair(last, Color::Black);
        facts
    }
}

/// Walks the material of a game: `start` is the start position's board,
/// `turn` its side to move, `moves` the mainline, `last` the final board.
pub(crate) fn material_facts(
    start: &Board,
    turn: Color,
    moves: &[Move],
    last: &Board,
    values: &PieceValues,
) -> MaterialFacts {
    let mut material = Material::of(start);
    let mut mover = turn;
    let mut diff = material.diff(values);
    let mut walk = Walk::start(&material, diff);
    for (index, m) in moves.iter().enumerate() {
        let ply = index as u32 + 1;
        let changes = match m {
            Move::Normal {
                capture, promotion, ..
            } => capture.is_some() || promotion.is_some(),
            Move::EnPassant { .. } => true,
            Move::Castle { .. } | Move::Put { .. } => false,
        };
        if changes {
            material.play(m, mover);
            // The difference moves by what the mover gained; recomputing it
            // from all counts costs more than the rest of this loop.
            let gain = gain_of(m, values);
            diff += if mover == Color::White { gain } else { -gain };
            walk.note(ply, &material, diff);
        }
        walk.checkpoint(ply, diff);
        mover = !mover;
    }
    walk.finish(material, last, values)
}

/// The material facts of a variant game from its material after each ply
/// (`[0]`: the start), where captures alone do not tell it (explosions,
/// pieces in hand).
pub(crate) fn material_facts_of(
    materials: &[Material],
    last: &Board,
    values: &PieceValues,
) -> MaterialFacts {
    let Some((first, rest)) = materials.split_first() else {
        return Walk::start(&Material::default(), 0).finish(Material::default(), last, values);
    };
    let mut walk = Walk::start(first, first.diff(values));
    let mut previous = first;
    for (index, material) in rest.iter().enumerate() {
        let ply = index as u32 + 1;
        let diff = material.diff(values);
        if material != previous {
            walk.note(ply, material, diff);
        }
        walk.checkpoint(ply, diff);
        previous = material;
    }
    walk.finish(*previous, last, values)
}

/// Material the mover gains by `m`: what it captures, and a promotion's
/// piece less the pawn.
fn gain_of(m: &Move, values: &PieceValues) -> i32 {
    match *m {
        Move::Normal {
            capture, promotion, ..
        } => {
            capture.map_or(0, |role| values.of(role))
                + promotion.map_or(0, |role| values.of(role) - values.of(Role::Pawn))
        }
        Move::EnPassant { .. } => values.of(Role::Pawn),
        Move::Castle { .. } | Move::Put { .. } => 0,
    }
}

/// Bishops on both light and dark squares.
fn has_bishop_pair(board: &Board, color: Color) -> bool {
    let bishops = board.by_piece(Role::Bishop.of(color));
    (bishops & Bitboard::LIGHT_SQUARES).any() && (bishops & Bitboard::DARK_SQUARES).any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::san::San;
    use shakmaty::{CastlingMode, Chess, Position};

    fn facts_of(fen: Option<&str>, sans: &str, values: &PieceValues) -> MaterialFacts {
        let mut pos: Chess = match fen {
            Some(f) => f
                .parse::<Fen>()
                .ok()
                .and_then(|f| f.into_position(CastlingMode::Standard).ok())
                .unwrap_or_else(|| panic!("bad fen {f}")),
            None => Chess::default(),
        };
        let start = pos.board().clone();
        let turn = pos.turn();
        let mut moves = Vec::new();
        for token in sans.split_whitespace() {
            let san: San = token.parse().unwrap_or_else(|e| panic!("{token}: {e}"));
            let m = san.to_move(&pos).unwrap_or_else(|e| panic!("{token}: {e}"));
            pos.play_unchecked(m);
            moves.push(m);
        }
        material_facts(&start, turn, &moves, pos.board(), values)
    }

    #[test]
    fn a_known_material_sequence() {
        // 3.Bxf7+ wins a pawn, 3...Kxf7 a bishop back: white is 2 behind.
        let f = facts_of(None, "e4 e5 Bc4 Nf6 Bxf7+ Kxf7", &PieceValues::default());
        assert_eq!(
            f.final_material.signature(),
            "KQRRBNNPPPPPPPPvKQRRBBNNPPPPPPP"
        );
        assert_eq!((f.white, f.black, f.diff), (36, 38, -2));
        assert_eq!((f.max_white_lead, f.max_black_lead), (1, 2));
        assert_eq!(f.diff_at, [None; 4]);
        assert_eq!(f.endgame_ply, None);
        assert!(!f.bishop_pair_white && f.bishop_pair_black);
    }

    #[test]
    fn checkpoints_are_taken_after_that_many_plies() {
        let moves = "Nf3 Nf6 Ng1 Ng8 ".repeat(5);
        let f = facts_of(None, &moves, &PieceValues::default());
        assert_eq!(f.diff_at, [Some(0), None, None, None]);
    }

    #[test]
    fn the_first_endgame_position_and_promotions() {
        let fen = "3qk3/P7/8/8/8/8/8/3QK2R w K - 0 1";
        let values = PieceValues::default();
        let f = facts_of(Some(fen), "Qxd8+ Kxd8 a8=Q+ Kc7", &values);
        // A white queen with a rook is no endgame (start, and after
        // 1.Qxd8+); after 1...Kxd8 white has a rook and a pawn: an endgame.
        assert_eq!(f.endgame_ply, Some(2));
        assert_eq!(
            f.endgame_material.map(|m| m.signature()).as_deref(),
            Some("KRPvK")
        );
        assert_eq!(f.final_material.signature(), "KQRvK");
        assert_eq!((f.white, f.black, f.diff), (14, 0, 14));
        // After 1.Qxd8+ white led by Q + R + P = 15.
        assert_eq!((f.max_white_lead, f.max_black_lead), (15, 0));
        let queen_ten = PieceValues::parse("1,3,3,5,10").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(facts_of(Some(fen), "Qxd8+ Kxd8 a8=Q+", &queen_ten).diff, 15);
    }

    #[test]
    fn normalized_signatures_put_the_stronger_side_first() {
        let f = facts_of(
            Some("4k3/8/8/8/8/8/4p3/R3K3 b Q - 0 1"),
            "",
            &PieceValues::default(),
        );
        assert_eq!(f.final_material.signature(), "KRvKP");
        assert_eq!(
            f.final_material
                .normalized_signature(&PieceValues::default()),
            "KRvKP"
        );
        let g = facts_of(
            Some("r3k3/8/8/8/8/8/4P3/4K3 w q - 0 1"),
            "",
            &PieceValues::default(),
        );
        assert_eq!(g.final_material.signature(), "KPvKR");
        assert_eq!(
            g.final_material
                .normalized_signature(&PieceValues::default()),
            "KRvKP"
        );
        assert_eq!(
            g.final_material.stronger(&PieceValues::default()),
            Color::Black
        );
        // Equal material: the larger kind first (a bishop over a knight).
        let h = facts_of(
            Some("4k3/8/8/8/8/8/8/3NKb2 w - - 0 1"),
            "",
            &PieceValues::default(),
        );
        assert_eq!(
            h.final_material
                .normalized_signature(&PieceValues::default()),
            "KBvKN"
        );
    }

    #[test]
    fn endgame_definition() {
        let endgame =
            |fen: &str| facts_of(Some(fen), "", &PieceValues::default()).endgame_ply == Some(0);
        assert!(endgame("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1"), "rooks");
        assert!(
            endgame("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1"),
            "two pieces each"
        );
        assert!(
            !endgame("r3k2r/8/8/8/8/8/8/R3KB1R w - - 0 1"),
            "three pieces"
        );
        assert!(
            endgame("3qk3/8/8/8/8/8/8/3QKB2 w - - 0 1"),
            "queen and one minor"
        );
        assert!(
            !endgame("3qk3/8/8/8/8/8/8/3QKBN1 w - - 0 1"),
            "queen and two minors"
        );
        assert!(
            !endgame("3qk3/8/8/8/8/8/8/3QK2R w - - 0 1"),
            "queen and rook"
        );
        assert!(
            !endgame("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1"),
            "queens off"
        );
    }

    #[test]
    fn bishop_pair_needs_both_square_colors() {
        // Two dark-squared bishops (after a promotion) are no pair.
        let f = facts_of(
            Some("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1"),
            "",
            &PieceValues::default(),
        );
        assert!(f.bishop_pair_white);
        let g = facts_of(
            Some("4k3/8/8/8/8/8/3B4/2B1K3 w - - 0 1"),
            "",
            &PieceValues::default(),
        );
        assert!(!g.bishop_pair_white);
    }

    #[test]
    fn piece_values_parse() {
        assert_eq!(
            PieceValues::parse("1,3,3,5,10"),
            Ok(PieceValues([1, 3, 3, 5, 10]))
        );
        assert!(PieceValues::parse("1,3,3,5").is_err());
        assert!(PieceValues::parse("1,3,x,5,9").is_err());
        assert!(PieceValues::parse("1,3,3,5,-9").is_err());
    }
}
