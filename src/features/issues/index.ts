export {
  canOpenIncidentIn,
  closeIncident,
  isOpenIncident,
  openIncident,
  type IncidentCloseReason,
  type OpenIncidentInput,
} from './incidents.js'
