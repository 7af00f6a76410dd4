import 'uplot/dist/uPlot.min.css';
import { useComputedColorScheme } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import uPlot from 'uplot';

/** uPlot's axis font (its default), to measure the labels with. */
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif';

export interface ChartLine {
  label: string;
  color: string;
  points: { t: number; v: number | null }[];
}

/** A time chart (uPlot: small and fast); `t` in milliseconds, gaps where `v` is null. */
/** `range` fixes the value axis (percentages: 0 to 100); without it the axis fits the data. */
export default function Chart({
  lines,
  format,
  height = 200,
  range,
}: {
  lines: ChartLine[];
  format: (value: number) => string;
  height?: number;
  range?: [number, number];
}) {
  const { ref: box, width } = useElementSize();
  const target = useRef<HTMLDivElement>(null);
  const dark = useComputedColorScheme('light') === 'dark';
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  useEffect(() => {
    if (!target.current || width === 0 || lines.length === 0) return;
    const times = lines[0]!.points.map((point) => point.t / 1000);
    const data: uPlot.AlignedData = [times, ...lines.map((line) => line.points.map((point) => point.v))];
    // Times in the page's language (uPlot's own are English: "Time", "12:20pm"); days too once the range spans them.
    const span = times.length > 1 ? times[times.length - 1]! - times[0]! : 0;
    const tick = new Intl.DateTimeFormat(
      language,
      span > 36 * 3600 ? { month: 'short', day: 'numeric', hour: 'numeric' } : { hour: 'numeric', minute: '2-digit' },
    );
    const full = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });
    const axis = {
      stroke: dark ? '#c1c2c5' : '#495057',
      grid: { stroke: dark ? '#373a40' : '#e9ecef' },
      ticks: { stroke: dark ? '#373a40' : '#e9ecef' },
    };
    const plot = new uPlot(
      {
        width,
        height,
        series: [
          {
            label: t('system.time'),
            value: (_u: uPlot, v: number | null) => (v === null ? '—' : full.format(v * 1000)),
          },
          ...lines.map((line) => ({
            label: line.label,
            stroke: line.color,
            width: 2,
            fill: `${line.color}22`,
            value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
          })),
        ],
        axes: [
          {
            ...axis,
            space: span > 36 * 3600 ? 90 : 60,
            values: (_u: uPlot, values: number[]) => values.map((v) => tick.format(v * 1000)),
          },
          {
            ...axis,
            values: (_u: uPlot, values: number[]) => values.map(format),
            // As wide as its longest label ("۱٫۰ کیلوبایت/ثانیه" is twice "1.0 KiB/s"), at least 70 px.
            size: (self: uPlot, values: string[] | null) => {
              if (!values?.length) return 70;
              const before = self.ctx.font;
              self.ctx.font = AXIS_FONT;
              const widest = Math.max(...values.map((label) => self.ctx.measureText(label).width));
              self.ctx.font = before;
              return Math.max(70, Math.ceil(widest) + 20);
            },
          },
        ],
        scales: { x: { time: true }, ...(range ? { y: { range } } : {}) },
        legend: { show: true },
      },
      data,
      target.current,
    );
    // The plot reads left to right (time runs that way); its legend, words, in the page's direction.
    plot.root.querySelector('.u-legend')?.setAttribute('dir', i18n.dir(language));
    return () => plot.destroy();
  }, [lines, width, height, dark, format, range, language, t, i18n]);
  return (
    <div ref={box} style={{ width: '100%' }}>
      <div ref={target} data-testid="chart" dir="ltr" />
    </div>
  );
}
