//! Serve, the explorer page (stub).
pub(crate) async fn index() -> &'static str {
    "pgnlake"
}
pub(crate) async fn game() -> &'static str {
    "game"
}
