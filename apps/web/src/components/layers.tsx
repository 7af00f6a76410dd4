import { Drawer as MantineDrawer, Modal as MantineModal, type DrawerProps, type ModalProps } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * Escape closes only the top-most layer. Mantine's modals and drawers each listen for Escape on
 * the window, so one key press closed a QR code, the configs under it and the client drawer under
 * those together. Here every open layer joins one stack, in the order it opened; one listener
 * closes the last of them. Escape meant for an open list inside a layer (a Select's dropdown
 * marks its input `data-mantine-stop-propagation`) closes only that list, as in Mantine.
 */
const layers: { close: () => void }[] = [];

function onKeyDown(event: KeyboardEvent): void {
  if (event.key !== 'Escape' || event.isComposing || event.defaultPrevented) return;
  const target = event.target as Element | null;
  if (target?.getAttribute?.('data-mantine-stop-propagation') === 'true') return;
  layers.at(-1)?.close();
}
window.addEventListener('keydown', onKeyDown, { capture: true });

/** Puts a layer on the Escape stack while `opened`. */
export function useEscapeLayer(opened: boolean, onClose: () => void): void {
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });
  // Where focus was when the layer opened (read while rendering, before the layer takes focus): it
  // goes back there also when the layer is unmounted rather than closed (the client drawer is a
  // route), which Mantine's own return of focus misses and leaves a keyboard user at the top.
  const before = useRef<HTMLElement | null>(null);
  if (opened && !before.current) before.current = document.activeElement as HTMLElement | null;
  useEffect(() => {
    if (!opened) return;
    return () => {
      const element = before.current;
      before.current = null;
      setTimeout(() => {
        const lost = !document.activeElement || document.activeElement === document.body;
        if (lost && element?.isConnected) element.focus();
      }, 0);
    };
  }, [opened]);
  useEffect(() => {
    if (!opened) return;
    const layer = { close: () => close.current() };
    layers.push(layer);
    return () => {
      const index = layers.indexOf(layer);
      if (index >= 0) layers.splice(index, 1);
    };
  }, [opened]);
}

/** Mantine's Modal on the Escape stack: use it for every dialog. */
export function Modal(props: ModalProps) {
  useEscapeLayer(props.opened, props.onClose);
  const { t } = useTranslation();
  // The close button is an icon: it gets a name a screen reader can say.
  return (
    <MantineModal
      {...props}
      closeOnEscape={false}
      closeButtonProps={{ 'aria-label': t('a11y.close'), ...props.closeButtonProps }}
    />
  );
}

/** Mantine's Drawer on the Escape stack. */
export function Drawer(props: DrawerProps) {
  useEscapeLayer(props.opened, props.onClose);
  const { t } = useTranslation();
  return (
    <MantineDrawer
      // Room on both sides of the content, kept when a scrollbar shows (it would take the padding's place).
      padding="lg"
      {...props}
      styles={{ content: { scrollbarGutter: 'stable' } }}
      closeOnEscape={false}
      closeButtonProps={{ 'aria-label': t('a11y.close'), ...props.closeButtonProps }}
    />
  );
}
