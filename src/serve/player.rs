//! Serve, `/player` (stub).
pub(crate) async fn player() -> &'static str {
    ""
}
