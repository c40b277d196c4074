pub fn answer() -> u32 {
    42
}
