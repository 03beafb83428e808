//! Replay stage, one game searched: its positions walked from the start
//! with the query's current condition, as scoutfish walks them (a
//! sequence's conditions at increasing plies, a streak's at consecutive
//! ones, a broken streak restarting the query), until the last condition
//! holds or the game ends.

use shakmaty::{Move, Position};

use super::query::Query;
use super::rules::{At, ResultCode, Rule, Verdict};

/// Searches one game: `pos` is its start, `next` gives the move played
/// from a position (None after the last), `result` its declared result.
/// The plies of the first match, one per condition; None when the game
/// does not match. An error of `next` (a move that cannot be played) ends
/// the search with it.
pub fn search_game<P, E>(
    query: &Query,
    mut pos: P,
    result: ResultCode,
    mut next: impl FnMut(&P) -> Result<Option<Move>, E>,
) -> Result<Option<Vec<u32>>, E>
where
    P: Position,
{
    let conditions = &query.conditions;
    let mut current = 0;
    let mut plies: Vec<u32> = Vec::new();
    // Where the current streak's plies start in `plies`.
    let mut streak_start = 0;
    let mut ply: u32 = 0;
    loop {
        let m = next(&pos)?;
        let Some(condition) = conditions.get(current) else {
            return Ok(None);
        };
        // A streak broken: its last matched ply is not the one before.
        if condition.streak.is_some()
            && plies.len() > streak_start
            && plies
                .last()
                .is_some_and(|&last| last.checked_add(1) != Some(ply))
        {
            current = 0;
            plies.clear();
            streak_start = 0;
        }
        let condition = &conditions[current];
        let at = At {
            pos: &pos,
            next: m.as_ref(),
            result,
        };
        let mut holds = true;
        for rule in &condition.rules {
            match rule.test(&at) {
                Verdict::Holds => {}
                Verdict::Fails => {
                    holds = false;
                    break;
                }
                Verdict::NeverInThisGame => return Ok(None),
            }
        }
        if holds {
            plies.push(ply);
            current += 1;
            let Some(following) = conditions.get(current) else {
                return Ok(Some(plies));
            };
            if following.streak.is_some() && following.streak != condition.streak {
                streak_start = plies.len();
            }
        }
        let Some(m) = m else {
            return Ok(None);
        };
        pos.play_unchecked(m);
        ply += 1;
    }
}

/// A game decided at its start, without its moves: a query of one
/// condition whose rules read no move (`sub-fen`, `material`,
/// `imbalance`, `stm`, `fen`, `result`, `pass`) matches at ply 0 when they
/// hold on the start position (as [`search_game`] finds), and never when
/// the game's result rules it out. None when the moves are needed.
pub fn decided_at_start<P: Position>(
    query: &Query,
    pos: &P,
    result: ResultCode,
) -> Option<Option<Vec<u32>>> {
    let [condition] = query.conditions.as_slice() else {
        return None;
    };
    if condition.rules.iter().any(Rule::reads_the_move) {
        return None;
    }
    let at = At {
        pos,
        next: None,
        result,
    };
    let mut holds = true;
    for rule in &condition.rules {
        match rule.test(&at) {
            Verdict::Holds => {}
            Verdict::Fails => holds = false,
            Verdict::NeverInThisGame => return Some(None),
        }
    }
    holds.then_some(Some(vec![0]))
}

#[cfg(test)]
mod tests {
    use shakmaty::uci::UciMove;
    use shakmaty::{CastlingMode, Chess};

    use super::*;

    /// The plies of `query` in the game of `uci` moves from the start.
    fn plies(query: &str, uci: &str, result: &str) -> Option<Vec<u32>> {
        let query = Query::parse(query).unwrap_or_else(|e| panic!("{e}"));
        let mut moves = uci.split_whitespace();
        let found = search_game(
            &query,
            Chess::default(),
            ResultCode::parse(result).unwrap_or(ResultCode::Unknown),
            |pos: &Chess| -> Result<Option<Move>, String> {
                moves
                    .next()
                    .map(|text| {
                        let uci =
                            UciMove::from_ascii(text.as_bytes()).map_err(|e| e.to_string())?;
                        uci.to_move(pos).map_err(|e| e.to_string())
                    })
                    .transpose()
            },
        );
        let _ = CastlingMode::Standard;
        found.unwrap_or_else(|e| panic!("{e}"))
    }

    const RUY: &str = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1";

    #[test]
    fn a_move_rule_holds_at_the_position_the_move_is_played_from() {
        assert_eq!(plies(r#"{"white-move": "Ba4"}"#, RUY, "*"), Some(vec![6]));
        assert_eq!(plies(r#"{"white-move": "e4"}"#, RUY, "*"), Some(vec![0]));
        assert_eq!(plies(r#"{"white-move": "O-O"}"#, RUY, "*"), Some(vec![8]));
        assert_eq!(plies(r#"{"black-move": "O-O"}"#, RUY, "*"), None);
    }

    #[test]
    fn a_game_decided_at_its_start_is_decided_as_its_replay_decides_it() {
        let start = Chess::default();
        for (query, result) in [
            (r#"{"pass": ""}"#, "*"),
            (r#"{"result": "1-0"}"#, "1-0"),
            (r#"{"result": "1-0"}"#, "0-1"),
            (
                r#"{"stm": "white", "material": "KQRRBBNNPPPPPPPPKQRRBBNNPPPPPPPP"}"#,
                "*",
            ),
            (r#"{"stm": "black", "result": "0-1"}"#, "1-0"),
        ] {
            let code = ResultCode::parse(result).unwrap_or(ResultCode::Unknown);
            let parsed = Query::parse(query).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                decided_at_start(&parsed, &start, code),
                Some(plies(query, RUY, result)),
                "{query} {result}"
            );
        }
        // Undecided: a rule that reads the move, a sequence, a position
        // that does not hold at the start.
        for query in [
            r#"{"captured": ""}"#,
            r#"{"result-type": "mate"}"#,
            r#"{"sequence": [{"pass": ""}, {"pass": ""}]}"#,
            r#"{"stm": "black"}"#,
        ] {
            let parsed = Query::parse(query).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                decided_at_start(&parsed, &start, ResultCode::Unknown),
                None,
                "{query}"
            );
        }
    }

    #[test]
    fn a_sequence_matches_at_increasing_plies() {
        let q = r#"{"sequence": [{"white-move": "e4"}, {"black-move": "e5"}]}"#;
        assert_eq!(plies(q, RUY, "*"), Some(vec![0, 1]));
        // Two conditions never match the same position.
        let q = r#"{"sequence": [{"pass": ""}, {"pass": ""}, {"pass": ""}]}"#;
        assert_eq!(plies(q, RUY, "*"), Some(vec![0, 1, 2]));
    }

    #[test]
    fn a_broken_streak_restarts_the_query() {
        let q = r#"{"streak": [{"white-move": "e4"}, {"pass": ""}, {"white-move": "Nf3"}]}"#;
        assert_eq!(plies(q, RUY, "*"), Some(vec![0, 1, 2]));
        let q = r#"{"streak": [{"white-move": "e4"}, {"white-move": "Nf3"}]}"#;
        assert_eq!(plies(q, RUY, "*"), None);
        let q = r#"{"sequence": [{"white-move": "e4"}, {"streak": [{"white-move": "Nf3"}, {"black-move": "Nc6"}]}]}"#;
        assert_eq!(plies(q, RUY, "*"), Some(vec![0, 2, 3]));
    }

    #[test]
    fn the_final_position_is_tested_and_a_result_rules_a_game_out() {
        let mate = "f2f3 e7e5 g2g4 d8h4";
        assert_eq!(
            plies(r#"{"result-type": "mate"}"#, mate, "0-1"),
            Some(vec![4])
        );
        assert_eq!(plies(r#"{"result": "1-0", "pass": ""}"#, mate, "0-1"), None);
        assert_eq!(
            plies(r#"{"result": ["1-0", "0-1"]}"#, mate, "0-1"),
            Some(vec![0])
        );
        assert_eq!(
            plies(
                r#"{"sub-fen": "8/8/8/8/7q/8/8/8", "stm": "white"}"#,
                mate,
                "*"
            ),
            Some(vec![4])
        );
    }

    #[test]
    fn material_imbalance_and_captures() {
        let game = "e2e4 d7d5 e4d5 d8d5 b1c3 d5a5";
        assert_eq!(plies(r#"{"imbalance": "Pv"}"#, game, "*"), Some(vec![3]));
        assert_eq!(
            plies(r#"{"captured": "P", "stm": "black"}"#, game, "*"),
            Some(vec![3])
        );
        assert_eq!(
            plies(r#"{"captured": "", "moved": "N"}"#, game, "*"),
            Some(vec![4])
        );
        assert_eq!(
            plies(
                r#"{"material": "KQRRBBNNPPPPPPPKQRRBBNNPPPPPPP"}"#,
                game,
                "*"
            ),
            Some(vec![4])
        );
        assert_eq!(
            plies(r#"{"black-move": "dxe5"}"#, "e2e4 e7e6 d2d4 d7d5", "*"),
            None
        );
        assert_eq!(
            plies(r#"{"black-move": "dxd5"}"#, "e2e4 e7e6 d2d4 d7d5", "*"),
            Some(vec![3])
        );
    }
}
