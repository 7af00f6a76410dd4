import {
  ActionIcon,
  Alert,
  AppShell,
  Burger,
  Group,
  Menu,
  NavLink,
  ScrollArea,
  Text,
  Title,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import {
  IconApi,
  IconArchive,
  IconHistory,
  IconChartLine,
  IconDashboard,
  IconLanguage,
  IconLogout,
  IconMoon,
  IconNetwork,
  IconPlugConnected,
  IconRoute,
  IconServer,
  IconSettings,
  IconBell,
  IconSun,
  IconTemplate,
  IconUser,
  IconUserShield,
  IconUsers,
  IconUsersGroup,
  IconWorld,
} from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, NavLink as RouterLink, useLocation, useNavigate } from 'react-router';
import { api, onConnection } from './api.js';
import { LANGUAGES, switchLanguage } from './i18n.js';
import { useUser } from './session.js';

// `reseller`: the pages a reseller may use (their clients and overview, the API listing); the API
// refuses them every other page's calls, so the menu shows them none of those.
const NAV = [
  { to: '/overview', key: 'nav.overview', icon: IconDashboard, reseller: true },
  { to: '/clients', key: 'nav.clients', icon: IconUsers, reseller: true },
  { to: '/groups', key: 'nav.groups', icon: IconUsersGroup },
  { to: '/interfaces', key: 'nav.interfaces', icon: IconNetwork },
  { to: '/hosts', key: 'nav.hosts', icon: IconWorld },
  { to: '/outbounds', key: 'nav.outbounds', icon: IconPlugConnected },
  { to: '/routing', key: 'nav.routing', icon: IconRoute },
  { to: '/template', key: 'nav.template', icon: IconTemplate },
  { to: '/nodes', key: 'nav.nodes', icon: IconServer },
  { to: '/backups', key: 'nav.backups', icon: IconArchive },
  { to: '/audit', key: 'nav.audit', icon: IconHistory, ownerOnly: true },
  { to: '/system', key: 'nav.system', icon: IconChartLine },
  { to: '/settings', key: 'nav.settings', icon: IconSettings },
  // Owner and admins: webhooks and the switches are theirs (a viewer would read only refusals).
  { to: '/notifications', key: 'nav.notifications', icon: IconBell, managersOnly: true },
  { to: '/api-docs', key: 'nav.api', icon: IconApi, reseller: true },
  // The owner's alone (the API refuses everyone else): not shown to other roles.
  { to: '/operators', key: 'nav.operators', icon: IconUserShield, ownerOnly: true },
] as const;

/** The signed-in frame: a sidebar (a drawer on a phone), a header with language, theme and account. */
export function Layout() {
  const { t } = useTranslation();
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  const role = useUser().role;
  useEffect(close, [location.pathname, close]);
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('nav.menu')} />
            <Title order={4}>Warren</Title>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <LanguageMenu />
            <ThemeToggle />
            <AccountMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label={t('nav.menu')}>
        <AppShell.Section grow component={ScrollArea}>
          {NAV.filter((item) =>
            role === 'reseller'
              ? 'reseller' in item
              : (!('ownerOnly' in item) || role === 'owner') && (!('managersOnly' in item) || role !== 'viewer'),
          ).map((item) => (
            <NavLink
              key={item.to}
              component={RouterLink}
              to={item.to}
              label={t(item.key)}
              leftSection={<item.icon size={18} stroke={1.6} />}
              active={location.pathname.startsWith(item.to)}
            />
          ))}
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <ConnectionBanner />
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}

/** The language switch (header and sign-in page). */
export function LanguageMenu() {
  const { t } = useTranslation();
  return (
    <Menu position="bottom-end">
      <Menu.Target>
        <ActionIcon variant="default" size="lg" aria-label={t('header.language')} data-testid="language-menu">
          <IconLanguage size={18} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        {LANGUAGES.map((language) => (
          <Menu.Item
            key={language.code}
            onClick={() => void switchLanguage(language.code)}
            data-testid={`language-${language.code}`}
          >
            {language.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

/** Light or dark (header and sign-in page). */
export function ThemeToggle() {
  const { t } = useTranslation();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  return (
    <ActionIcon
      variant="default"
      size="lg"
      aria-label={t('header.theme')}
      onClick={() => setColorScheme(scheme === 'dark' ? 'light' : 'dark')}
    >
      {scheme === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
    </ActionIcon>
  );
}

function AccountMenu() {
  const { t } = useTranslation();
  const user = useUser();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signOut = async () => {
    await api.POST('/api/auth/logout').catch(() => undefined);
    queryClient.clear();
    await navigate('/sign-in', { replace: true });
  };
  return (
    <Menu position="bottom-end">
      <Menu.Target>
        <ActionIcon variant="default" size="lg" aria-label={t('header.account')}>
          <IconUser size={18} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          <Text size="sm" fw={500}>
            {user.username}
          </Text>
          <Text size="xs" c="dimmed">
            {t(`roles.${user.role}`)}
          </Text>
        </Menu.Label>
        <Menu.Item leftSection={<IconUser size={16} />} onClick={() => void navigate('/account')}>
          {t('account.title')}
        </Menu.Item>
        <Menu.Item leftSection={<IconLogout size={16} />} onClick={() => void signOut()} data-testid="sign-out">
          {t('header.signOut')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** Shown while requests do not reach the panel; queries retry meanwhile, and the health route is asked every few seconds. */
function ConnectionBanner() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [offline, setOffline] = useState(false);
  useEffect(
    () =>
      onConnection((event) => {
        if (event === 'offline') setOffline(true);
        if (event === 'online')
          setOffline((was) => {
            if (was) void queryClient.invalidateQueries();
            return false;
          });
      }),
    [queryClient],
  );
  useEffect(() => {
    if (!offline) return;
    const timer = setInterval(() => void api.GET('/api/health').catch(() => undefined), 3000);
    return () => clearInterval(timer);
  }, [offline]);
  if (!offline) return null;
  return (
    <Alert color="red" mb="md" title={t('connection.lost')} data-testid="connection-banner">
      {t('connection.retrying')}
    </Alert>
  );
}
