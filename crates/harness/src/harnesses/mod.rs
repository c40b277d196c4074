//! One module per harness. Register new ones in [`builtin`].

use std::sync::Arc;

use crate::Harness;

mod claude_code;
mod cli_env;
mod cli_tools;
mod deepseek_tui;
mod generic;
mod kimi_chat;
mod kimi_cli;
mod kimi_code;
mod mini_swe_agent;
mod minimal;
mod native;
mod opencode;
mod qwen_code;
mod swe_agent;
mod terminus_2;
mod text_protocol;
mod zcode;

/// Every built-in harness, in menu order.
pub(crate) fn builtin() -> Vec<Arc<dyn Harness>> {
    vec![
        Arc::new(native::Native),
        Arc::new(minimal::Minimal),
        Arc::new(claude_code::ClaudeCode::full()),
        Arc::new(claude_code::ClaudeCode::bare()),
        Arc::new(zcode::Zcode::default()),
        Arc::new(swe_agent::SweAgent),
        Arc::new(mini_swe_agent::MiniSweAgent),
        Arc::new(terminus_2::Terminus2),
        Arc::new(kimi_cli::KimiCli),
        Arc::new(kimi_code::KimiCode),
        Arc::new(qwen_code::QwenCode),
        Arc::new(opencode::Opencode),
        Arc::new(deepseek_tui::DeepseekTui),
    ]
}
