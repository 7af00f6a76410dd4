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
      {...props}
      closeOnEscape={false}
      closeButtonProps={{ 'aria-label': t('a11y.close'), ...props.closeButtonProps }}
    />
  );
}
