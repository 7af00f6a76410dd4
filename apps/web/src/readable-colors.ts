import { darken, lighten, luminance, type CSSVariablesResolver } from '@mantine/core';

/**
 * Mantine's default colours leave text below WCAG AA contrast (4.5:1 for body text): dimmed text
 * (gray.6 on white, 3.3:1), white on a filled teal button (2.5:1), a light badge's word on its tint
 * ("in sync", green.9 on green.1, 3.8:1), outline badges (teal.6 on white). This resolver keeps
 * every colour's hue and darkens (on light) or lightens (on dark) just the text-bearing shades until
 * they read at 4.6:1 on the backgrounds they sit on; Lighthouse's contrast audit checks the same.
 */
const MIN = 4.6;
const WHITE = '#ffffff';

function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** `color`, darkened (or lightened) in small steps until it reads on every one of `backgrounds`. */
function readable(color: string, backgrounds: string[], direction: 'darker' | 'lighter' = 'darker'): string {
  for (let step = 0; step <= 20; step++) {
    const candidate =
      step === 0 ? color : direction === 'darker' ? darken(color, step / 20) : lighten(color, step / 20);
    if (backgrounds.every((background) => contrast(candidate, background) >= MIN)) return candidate;
  }
  return direction === 'darker' ? '#000000' : WHITE;
}

export const readableColors: CSSVariablesResolver = (theme) => {
  const light: Record<string, string> = {};
  const dark: Record<string, string> = {};
  const gray = theme.colors.gray;
  const shades = theme.colors.dark;
  for (const [name, color] of Object.entries(theme.colors)) {
    if (name === 'dark') continue;
    // A filled button or badge: white text on the colour, in both schemes.
    const filled = readable(color[6], [WHITE]);
    for (const scheme of [light, dark]) {
      scheme[`--mantine-color-${name}-filled`] = filled;
      scheme[`--mantine-color-${name}-filled-hover`] = darken(filled, 0.12);
    }
    // Light scheme: a light variant's word on its tint (and hover tint); outline text on a page or a striped row.
    light[`--mantine-color-${name}-light-color`] = readable(color[9], [color[1], color[2]]);
    light[`--mantine-color-${name}-outline`] = readable(color[6], [WHITE, gray[0]]);
  }
  light['--mantine-color-dimmed'] = readable(gray[6], [WHITE, gray[0], gray[1]]);
  // Dark scheme: dimmed text on the body, a card, and a hovered row.
  dark['--mantine-color-dimmed'] = readable(shades[2], [shades[7], shades[6], shades[5]], 'lighter');
  return { variables: {}, light, dark };
};
