// Stylesheets imported for their effect (Vite bundles them).
declare module '*.css';
