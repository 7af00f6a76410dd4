import { useDirection } from '@mantine/core';
import { Notifications, notifications, notificationsStore } from '@mantine/notifications';
import { useEffect } from 'react';
import { useLocation } from 'react-router';

/** How long a toast that reports success stays (ms): long enough to read a bulk job's sentence. */
const SUCCESS_MS = 5000;

/**
 * A failure (red) stays until dismissed, whichever page showed it: read in passing it would be
 * missed. Done here once, as each toast is shown, so no page has to remember it.
 */
notificationsStore.subscribe((state) => {
  for (const toast of state.notifications)
    if (toast.color === 'red' && toast.autoClose === undefined && toast.id)
      notifications.update({ id: toast.id, message: toast.message, autoClose: false });
});

/** The page a path shows (`/clients/<id>` is the clients page with a drawer open). */
const pageOf = (pathname: string) => pathname.split('/')[1] ?? '';

/**
 * Where toasts show: at the bottom on the side away from the sidebar (right in English, left in
 * Persian, where the sidebar is on the right), so they cover neither its links nor the first
 * columns of a table. Toasts that close by themselves go when another page opens; failures stay.
 */
export function Toasts() {
  const { dir } = useDirection();
  const page = pageOf(useLocation().pathname);
  useEffect(() => {
    for (const toast of notificationsStore.getState().notifications)
      if (toast.autoClose !== false && toast.id) notifications.hide(toast.id);
  }, [page]);
  return <Notifications position={dir === 'rtl' ? 'bottom-left' : 'bottom-right'} autoClose={SUCCESS_MS} />;
}
