//! What a result records about its job, typed once from the job (the exporters read these
//! rather than option strings): fio's `job options` echo and the exporters' settings.

use crate::spec::{Job, Origin};
use crate::typed::UnifiedRw;
use iolab_stats::{OptionList, ReportOptions};

impl Job {
    /// The values the exporters need from the job, typed once here rather than re-read from
    /// option strings (fio takes a group's from its first job).
    pub fn report_options(&self) -> ReportOptions {
        ReportOptions {
            iodepth: self.iodepth,
            unified_rw: match self.unified_rw_reporting() {
                UnifiedRw::None => 0,
                UnifiedRw::Mixed => 1,
                UnifiedRw::Both => 2,
            },
            group_reporting: self.group_reporting,
            slat_percentiles: self.slat_percentiles(),
            clat_percentiles: self.clat_percentiles(),
            lat_percentiles: self.lat_percentiles(),
            continue_on_error: self.continue_on_error(),
            description: self.description(),
            engine_ran: None,
        }
    }

    /// fio's `job options`: the options the job's own section (or its command-line job) set,
    /// in the order written (stat.c `json_add_job_opts` walks `td->opt_list`); inherited
    /// `[global]` options are fio's `global options` instead.
    pub fn own_options(&self) -> OptionList {
        OptionList::from_iter(
            self.options_in_order()
                .filter(|(_, o)| match &o.origin {
                    Origin::File { section, .. } => section == &self.section,
                    Origin::CommandLine { .. } => true,
                    Origin::Default => false,
                })
                .map(|(k, o)| (k.to_string(), o.raw.clone())),
        )
    }
}
