import { createRoot } from 'react-dom/client';

function App() {
  return <main><h1>trust studio</h1><p>The views arrive with the control API.</p></main>;
}

const root = document.getElementById('root');
if (root) createRoot(root).render(<App />);
