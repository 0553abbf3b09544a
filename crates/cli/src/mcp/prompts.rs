//! The server's four prompts (`recall`, `checkpoint`, `standup`, `plan-status`), which clients
//! offer as slash commands: each is the text of a tool's reply with a request around it.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{GetPromptResult, PromptMessage, Role};
use rmcp::{prompt, prompt_router};

use super::GoldfishServer;
use super::params::{CheckpointPromptArgs, RecallParams, RecallPromptArgs, StandupPromptArgs};
use super::plan::plan_status_markdown;
use super::recall::{recall_tool, standup_markdown};

fn user_prompt(text: String) -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
}

fn parse_days(days: Option<&str>) -> Option<u64> {
    days.and_then(|d| d.trim().parse().ok())
}

#[prompt_router(vis = "pub(super)")]
impl GoldfishServer {
    /// Restore context: what was done lately and the active plan.
    #[prompt(
        name = "recall",
        description = "Restore context from goldfish: recent checkpoints and the active plan, then continue the work."
    )]
    async fn recall_prompt(&self, Parameters(a): Parameters<RecallPromptArgs>) -> GetPromptResult {
        let params = RecallParams {
            search: a.search.filter(|s| !s.trim().is_empty()),
            days: parse_days(a.days.as_deref()),
            ..RecallParams::default()
        };
        let body = recall_tool(&self.ctx, params)
            .map(|r| r.text)
            .unwrap_or_else(|e| format!("(recall failed: {e:#})"));
        user_prompt(format!(
            "Here is the context goldfish recalled for this workspace. Read it, then continue \
             the work IMMEDIATELY from where it left off; don't ask what we were working on.\n\n{body}"
        ))
    }

    /// Ask the agent to checkpoint its recent work now.
    #[prompt(
        name = "checkpoint",
        description = "Save a goldfish checkpoint of the work done since the last one."
    )]
    async fn checkpoint_prompt(
        &self,
        Parameters(a): Parameters<CheckpointPromptArgs>,
    ) -> GetPromptResult {
        let focus = a
            .focus
            .filter(|f| !f.trim().is_empty())
            .map(|f| format!(" Focus on: {f}."))
            .unwrap_or_default();
        user_prompt(format!(
            "Call the goldfish `checkpoint` tool now. Describe what was done since the last \
             checkpoint, why, what was discovered or decided, and what comes next: a one-line \
             title, then a short paragraph. Add 2–4 tags.{focus}"
        ))
    }

    /// A standup across every workspace.
    #[prompt(
        name = "standup",
        description = "A standup across all workspaces: what was done lately and each active plan's progress."
    )]
    async fn standup_prompt(
        &self,
        Parameters(a): Parameters<StandupPromptArgs>,
    ) -> GetPromptResult {
        let body = standup_markdown(&self.ctx, parse_days(a.days.as_deref()))
            .unwrap_or_else(|e| format!("(standup failed: {e:#})"));
        user_prompt(format!(
            "Give me a short standup from this goldfish report: per workspace, what was done, \
             what is in progress, and any blockers.\n\n{body}"
        ))
    }

    /// The active plan and its progress.
    #[prompt(
        name = "plan-status",
        description = "The active plan of this workspace and its progress (checked vs open items)."
    )]
    async fn plan_status_prompt(&self) -> GetPromptResult {
        let body = plan_status_markdown(&self.ctx)
            .unwrap_or_else(|e| format!("(plan lookup failed: {e:#})"));
        user_prompt(format!(
            "Here is the active goldfish plan. Summarise its progress, name the next open item, \
             and update the plan with the `plan` tool if it is stale.\n\n{body}"
        ))
    }
}
