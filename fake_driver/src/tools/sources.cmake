# tools/: driver-side API tracers, the program debug API of a device without debug support, and metrics (groups,
# counters, activation, streamers, queries, calculation), and sysman (sysman/: docs/sysman.md).
zf_area(tools tracer.c debug.c metrics/metric_group.c metrics/metric_counters.c metrics/metric_activation.c
        metrics/metric_streamer.c metrics/metric_query.c metrics/metric_calc.c metrics/metric_system.c
        sysman/sysman_core.c sysman/sysman_device.c sysman/sysman_engine.c sysman/sysman_memory.c
        sysman/sysman_power.c sysman/sysman_events.c sysman/sysman_thresholds.c
        sysman/sysman_control.c sysman/sysman_driver.c sysman/sysman_diag.c
        sysman/sysman_board.c sysman/sysman_oc.c sysman/sysman_vf.c)
# Metrics of later headers: metric timestamps, export data, programmables and user-created groups, the tracer.
zf_area(tools metrics/metric_export.c metrics/metric_programmable.c metrics/metric_user_group.c
        metrics/metric_tracer.c)
# Sysman's fabric ports: the Xe Link ports of the fabric model (driver/zf_fabric.h).
zf_area(tools sysman/sysman_fabric.c)
