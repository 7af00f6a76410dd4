import { ControllerHostSampler } from './controller-host-sampler.js';
import { SystemHistoryMaintenance } from './history-maintenance.service.js';
import { SystemHistoryScheduler } from './history-maintenance.scheduler.js';
import { SystemHistoryStore } from './history-store.js';
import { SampleWriter } from './sample-writer.js';
import { SystemService } from './system.service.js';

/** Everything the system module provides, registered by AppModule in one line. */
export const SYSTEM_PROVIDERS = [SystemHistoryStore, SampleWriter, SystemService, ControllerHostSampler, SystemHistoryMaintenance, SystemHistoryScheduler];
