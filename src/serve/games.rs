//! Serve, games as lila-openingexplorer names them: a game's id in a URL
//! (`ID` in an import's folder, `IMPORT:ID` in a lake, as `explore` writes it), and the JSON of a
//! game in `topGames`, `recentGames` and `moves[].game`.

use serde::Serialize;

use crate::model::{Mode, TimeClass};
use crate::read::explore::TopGame;
use crate::read::game_ref::GameRef;

/// A player of a game.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Player {
    /// `?` when the game names none (PGN's unknown).
    pub name: String,
    pub rating: Option<i32>,
}

/// A game, as lila-openingexplorer writes it (its fields in their order:
/// `black` before `white`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ApiGame {
    /// The game's lichess id where its `Site` names one (so a client's
    /// link to lichess.org works), else pgnlake's (`reference`).
    pub id: String,
    /// pgnlake's id of the game (`17`, `IMPORT:17` in a lake): what the
    /// page's links and `/pgn/{id}` take.
    #[serde(skip)]
    pub reference: String,
    /// `white`, `black`, or null for a draw or an unfinished game.
    pub winner: Option<&'static str>,
    /// lichess's name of the game's speed (absent on `/masters`, and for a
    /// game whose clock is unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<&'static str>,
    /// `rated` or `casual`, from lichess's `Event` (absent on `/masters`
    /// and when the event does not say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    pub black: Player,
    pub white: Player,
    pub year: Option<i32>,
    pub month: Option<String>,
}

/// A game with the move it played from the position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct GameWithUci {
    pub uci: String,
    #[serde(flatten)]
    pub game: ApiGame,
}

impl ApiGame {
    /// `game` as `/lichess` and `/player` write it (`masters`: without
    /// speed and mode, and with pgnlake's id, which `/masters/pgn/{id}`
    /// takes).
    pub(crate) fn of(game: &TopGame, masters: bool) -> ApiGame {
        let reference = GameRef {
            import: game.import.clone(),
            id: game.game_id,
        }
        .to_string();
        let winner = match game.result.as_deref() {
            Some("1-0") => Some("white"),
            Some("0-1") => Some("black"),
            _ => None,
        };
        let player = |name: &Option<String>, rating: Option<i32>| Player {
            name: name.clone().unwrap_or_else(|| "?".to_owned()),
            rating,
        };
        let lichess_id = game.lichess_id.clone().filter(|_| !masters);
        ApiGame {
            id: lichess_id.unwrap_or_else(|| reference.clone()),
            reference,
            winner,
            speed: (!masters)
                .then(|| {
                    game.time_class
                        .parse::<TimeClass>()
                        .ok()
                        .and_then(TimeClass::lichess_name)
                })
                .flatten(),
            mode: (!masters)
                .then(|| Mode::of_event(game.event.as_deref()))
                .flatten(),
            black: player(&game.black, game.black_elo),
            white: player(&game.white, game.white_elo),
            year: game.year,
            month: game.month.clone(),
        }
    }
}
